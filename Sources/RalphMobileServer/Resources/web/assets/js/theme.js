// @ts-check
// The color theme: stored in localStorage, applied to <html data-theme>, and the browser's theme color follows it.
// Its own module so that the settings screen can change it without importing the shell (app.js).

const THEME_STORE = 'ralph.theme';

/// Applies the stored theme (cyberpunk when none is stored).
export function applyTheme() {
  const theme = localStorage.getItem(THEME_STORE) || 'cyberpunk';
  document.documentElement.dataset.theme = theme;
  /** @type {HTMLMetaElement | null} */
  const meta = document.querySelector('meta[name="theme-color"]');
  if (meta) meta.content = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() || '#0a0e27';
}

/** @param {string} theme */
export function setTheme(theme) {
  localStorage.setItem(THEME_STORE, theme);
  applyTheme();
}
