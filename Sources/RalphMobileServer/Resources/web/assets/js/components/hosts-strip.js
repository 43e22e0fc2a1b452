// @ts-check
// The hosts strip of the sessions list, in a cluster only: one chip per host (online dot, name, its runs, "this
// server" / "online" / "offline · last seen 2m ago"), which is also the host filter — "All hosts" or one host's runs.
// Chips are kept per host id and updated in place, so focus survives `host.updated` frames. Hidden entirely for a
// server on its own.

import { h, setRelativeTime } from '../ui.js';
import { showsHosts } from '../state/hosts.js';
import { hostChipLabel } from '../words/hosts.js';

/** @typedef {import('../state/hosts.js').HostsState} HostsState */
/** @typedef {import('../state/hosts.js').HostInfo} HostInfo */

export class HostsStrip {
  /** @param {(filter: string) => void} onSelect */
  constructor(onSelect) {
    this.onSelect = onSelect;
    this.allCount = h('span', { class: 'hs-count' });
    this.allState = h('span', { class: 'hs-state' });
    this.allButton = h('button', { type: 'button', class: 'hs-chip hs-all', 'data-test': 'host-filter-all', onclick: () => this.onSelect('all') },
      h('span', { class: 'hs-top' }, h('span', { class: 'hs-name' }, 'All hosts'), this.allCount),
      this.allState);
    this.chips = h('div', { class: 'hs-chips', role: 'group', 'aria-label': 'Hosts of the cluster: show the runs of' }, this.allButton);
    this.element = h('section', { class: 'hosts-strip', 'data-test': 'hosts-strip', 'aria-label': 'Hosts', hidden: true }, this.chips);
    /** @type {Map<string, {button: HTMLElement, dot: HTMLElement, name: HTMLElement, count: HTMLElement, state: HTMLElement, time: HTMLElement}>} */
    this.byId = new Map();
  }

  /**
   * @param {HostsState} hosts
   * @param {{filter: string, counts: Record<string, number>, total: number, now?: number}} view
   */
  update(hosts, { filter, counts, total, now = Date.now() }) {
    const shown = showsHosts(hosts);
    this.element.hidden = !shown;
    if (!shown) return;
    this.allButton.setAttribute('aria-pressed', String(filter === 'all'));
    this.allCount.textContent = String(total);
    const online = hosts.hosts.filter((host) => host.online).length;
    this.allState.textContent = online + ' of ' + hosts.hosts.length + ' online';
    this.allButton.setAttribute('aria-label', 'All hosts (' + online + ' of ' + hosts.hosts.length + ' online), ' + total + (total === 1 ? ' run' : ' runs'));
    const keep = new Set(hosts.hosts.map((host) => host.id));
    for (const [id, chip] of this.byId) {
      if (!keep.has(id)) {
        chip.button.remove();
        this.byId.delete(id);
      }
    }
    /** @type {Element} */
    let previous = this.allButton;
    for (const host of hosts.hosts) {
      const chip = this.chip(host);
      this.draw(chip, host, counts[host.id] || 0, filter === host.id, now);
      if (previous.nextSibling !== chip.button) this.chips.insertBefore(chip.button, previous.nextSibling);
      previous = chip.button;
    }
  }

  /** @param {HostInfo} host */
  chip(host) {
    let chip = this.byId.get(host.id);
    if (chip) return chip;
    const dot = h('span', { class: 'hs-dot', 'aria-hidden': 'true' });
    const name = h('span', { class: 'hs-name' });
    const count = h('span', { class: 'hs-count' });
    const time = h('time', {});
    const state = h('span', { class: 'hs-state', 'data-test': 'host-state' });
    const button = h('button', { type: 'button', class: 'hs-chip', 'data-test': 'host-chip', 'data-host-id': host.id, onclick: () => this.onSelect(host.id) },
      h('span', { class: 'hs-top' }, dot, name, count), state);
    chip = { button, dot, name, count, state, time };
    this.byId.set(host.id, chip);
    return chip;
  }

  /** @param {NonNullable<ReturnType<HostsStrip['byId']['get']>>} chip @param {HostInfo} host @param {number} count @param {boolean} pressed @param {number} now */
  draw(chip, host, count, pressed, now) {
    chip.button.dataset.hostName = host.name;
    chip.button.dataset.online = String(!!host.online);
    chip.button.dataset.self = String(!!host.is_self);
    chip.button.setAttribute('aria-pressed', String(pressed));
    chip.button.setAttribute('aria-label', hostChipLabel(host, count, now));
    chip.button.title = host.name + (host.version ? ' · ralph-mobile-server ' + host.version : '');
    chip.name.textContent = host.name;
    chip.count.textContent = String(count);
    if (host.online) {
      chip.state.textContent = host.is_self ? 'this server' : 'online';
    } else {
      // "last seen 2m ago", kept fresh by the list's relative-time tick.
      setRelativeTime(chip.time, host.last_heartbeat_at);
      chip.state.replaceChildren('offline', host.last_heartbeat_at ? ' \u00B7 ' : '', host.last_heartbeat_at ? chip.time : '');
    }
  }
}
