// @ts-check
// Pull to refresh on touch screens: pulling the top of `root` down past 70 px and letting go calls `onRefresh`.
// Returns a function that removes the listeners.

/** @param {HTMLElement} root @param {HTMLElement} note @param {() => void} onRefresh @returns {() => void} */
export function pullToRefresh(root, note, onRefresh) {
  /** @type {number | null} */
  let start = null;
  let pulled = 0;
  /** @param {TouchEvent} event */
  const onStart = (event) => {
    start = window.scrollY <= 0 && event.touches.length === 1 ? event.touches[0].clientY : null;
    pulled = 0;
  };
  /** @param {TouchEvent} event */
  const onMove = (event) => {
    if (start === null) return;
    pulled = event.touches[0].clientY - start;
    if (pulled > 10 && window.scrollY <= 0) {
      root.classList.add('sl-pulling');
      note.textContent = pulled > 70 ? 'Release to refresh' : 'Pull to refresh';
      note.style.setProperty('--pull', Math.min(pulled, 90) + 'px');
    } else {
      root.classList.remove('sl-pulling');
    }
  };
  const onEnd = () => {
    if (start !== null && pulled > 70) onRefresh();
    start = null;
    pulled = 0;
    root.classList.remove('sl-pulling');
  };
  /** @type {Array<[string, any]>} */
  const listeners = [['touchstart', onStart], ['touchmove', onMove], ['touchend', onEnd], ['touchcancel', onEnd]];
  for (const [name, fn] of listeners) root.addEventListener(name, fn, { passive: true });
  return () => { for (const [name, fn] of listeners) root.removeEventListener(name, fn); };
}
