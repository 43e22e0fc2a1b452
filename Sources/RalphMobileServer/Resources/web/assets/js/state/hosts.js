// @ts-check
// The hosts of a cluster as a value: read with `GET /api/hosts`, kept live by the global stream's `host.updated`, and
// the sessions list's host filter (which runs a host filter shows, how many each host has). A server on its own says
// `clustered: false`: then there is no host to show and no filter to apply. Pure: no DOM.

/**
 * @typedef {object} HostInfo One server of the cluster, as `GET /api/hosts` lists it and `host.updated` carries it.
 * @property {string} id stable across restarts
 * @property {string} name `--host-name`
 * @property {string} [version]
 * @property {boolean} online heartbeating now
 * @property {string} [last_heartbeat_at]
 * @property {boolean} [is_self] the server answering
 */

/**
 * @typedef {object} HostsState
 * @property {HostInfo[]} hosts This server first, then by name.
 * @property {boolean} clustered Whether the server is one host of a cluster.
 * @property {boolean} loaded Whether the list was read at least once.
 */

/**
 * @typedef {{type: 'fetched', list: {hosts?: HostInfo[], clustered?: boolean} | null}
 *   | {type: 'updated', host: HostInfo}
 *   | {type: 'failed'}
 * } HostsAction
 */

/** @typedef {{id: string, host?: string, host_id?: string}} HostedItem a session or conversation, with its host in a cluster */

/** @returns {HostsState} */
export function initialHostsState() {
  return { hosts: [], clustered: false, loaded: false };
}

/// This server first, then the others by name (as the server lists them).
/** @param {HostInfo[]} hosts @returns {HostInfo[]} */
export function orderedHosts(hosts) {
  return [...hosts].sort((a, b) => (Number(!!b.is_self) - Number(!!a.is_self)) || String(a.name).localeCompare(String(b.name)));
}

/** @param {HostsState} state @param {HostsAction} action @returns {HostsState} */
export function reduceHosts(state, action) {
  switch (action.type) {
    case 'fetched': {
      const list = action.list || {};
      const hosts = Array.isArray(list.hosts) ? list.hosts.filter((h) => h && h.id) : [];
      return { hosts: orderedHosts(hosts), clustered: !!list.clustered, loaded: true };
    }
    case 'updated': {
      const host = action.host;
      if (!host || !host.id) return state;
      const known = state.hosts.find((h) => h.id === host.id);
      // `is_self` is this page's server's to say: a frame about it keeps it.
      const merged = { ...(known || {}), ...host, is_self: known ? !!known.is_self : !!host.is_self };
      const hosts = known ? state.hosts.map((h) => (h.id === host.id ? merged : h)) : [...state.hosts, merged];
      // A frame about a second host means a cluster, whatever an older read said.
      return { ...state, hosts: orderedHosts(hosts), clustered: state.clustered || hosts.length > 1 };
    }
    case 'failed':
      // An older server has no /api/hosts: it is a server on its own.
      return state.loaded ? state : { ...state, loaded: true };
    default:
      return state;
  }
}

/// Whether a host filter applies at all: only in a cluster.
/** @param {HostsState} state */
export const showsHosts = (state) => state.clustered && state.hosts.length > 0;

/// Whether `item` (a session or conversation) is on the host `filter` names (its id, or its name ignoring case), as
/// `GET /api/sessions?host=` decides.
/** @param {HostedItem} item @param {string} filter */
export function onHost(item, filter) {
  if (!filter) return true;
  return item.host_id === filter || String(item.host || '').toLowerCase() === filter.toLowerCase();
}

/// The host filter in effect: the stored one while it names a host of the cluster, else `all` (a server on its own,
/// or a host that left). Until the hosts are read, the stored one is kept (the list is then not filtered yet).
/** @param {HostsState} state @param {string | null | undefined} stored @returns {string} */
export function hostFilterInEffect(state, stored) {
  if (!stored || stored === 'all') return 'all';
  if (!state.loaded) return stored;
  if (!showsHosts(state)) return 'all';
  return state.hosts.some((h) => h.id === stored) ? stored : 'all';
}

/// The items a host filter shows (`all`: every one).
/** @template {HostedItem} T @param {T[]} items @param {string} filter @returns {T[]} */
export function filterByHost(items, filter) {
  if (!filter || filter === 'all') return items;
  return items.filter((item) => onHost(item, filter));
}

/// How many items each host has, by host id (an item named by its host's name counts for that host too).
/** @param {HostsState} state @param {HostedItem[]} items @returns {Record<string, number>} */
export function countsByHost(state, items) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const host of state.hosts) counts[host.id] = items.filter((item) => onHost(item, host.id) || onHost(item, host.name)).length;
  return counts;
}

/// The host `filter` names, if it names one.
/** @param {HostsState} state @param {string} filter @returns {HostInfo | undefined} */
export function hostNamed(state, filter) {
  if (!filter || filter === 'all') return undefined;
  return state.hosts.find((h) => h.id === filter || h.name.toLowerCase() === filter.toLowerCase());
}

/// The host this page's server is.
/** @param {HostsState} state @returns {HostInfo | undefined} */
export function selfHost(state) {
  return state.hosts.find((h) => h.is_self);
}
