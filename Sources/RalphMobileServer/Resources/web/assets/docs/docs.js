// The API reference page (/docs): renders the server's OpenAPI contract (/openapi.json) with the DOM alone — no
// framework, no CDN, no HTML from the document (every text goes in as text).

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const MAX_DEPTH = 6;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The little Markdown the contract's descriptions use: paragraphs, "- " lists, `code` and **bold**.
export function inline(text) {
  const out = [];
  const pattern = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    const token = match[0];
    out.push(token.startsWith('`') ? el('code', {}, token.slice(1, -1)) : el('strong', {}, token.slice(2, -2)));
    last = match.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function markdown(text) {
  const blocks = [];
  let list = null;
  for (const paragraph of String(text || '').split(/\n{2,}/)) {
    const lines = paragraph.split('\n');
    if (lines.every((line) => /^\s*- /.test(line) || /^\s{2,}\S/.test(line))) {
      list = el('ul');
      for (const line of lines) {
        if (/^\s*- /.test(line)) list.append(el('li', {}, inline(line.replace(/^\s*- /, ''))));
        else if (list.lastChild) list.lastChild.append(' ', ...inline(line.trim()));
      }
      blocks.push(list);
    } else {
      blocks.push(el('p', {}, inline(lines.join(' '))));
    }
  }
  return blocks;
}

function resolve(spec, value) {
  let seen = 0;
  while (value && value.$ref && seen < 10) {
    const parts = value.$ref.replace(/^#\//, '').split('/');
    value = parts.reduce((node, part) => (node ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), spec);
    seen += 1;
  }
  return value || {};
}

function refName(schema) {
  return schema && schema.$ref ? schema.$ref.split('/').pop() : null;
}

function typeOf(spec, schema) {
  const name = refName(schema);
  const resolved = resolve(spec, schema);
  if (resolved.oneOf || resolved.anyOf) {
    return (resolved.oneOf || resolved.anyOf).map((option) => typeOf(spec, option)).join(' | ');
  }
  let type = Array.isArray(resolved.type) ? resolved.type.join(' | ') : resolved.type || (resolved.properties ? 'object' : '');
  if (type === 'array' || (Array.isArray(resolved.type) && resolved.type.includes('array'))) {
    type = type.replace('array', `array of ${typeOf(spec, resolved.items || {})}`);
  }
  if (resolved.enum) type += ` (${resolved.enum.map((v) => JSON.stringify(v)).join(', ')})`;
  if (resolved.const !== undefined) type += ` = ${JSON.stringify(resolved.const)}`;
  return name ? `${name}${type && type !== 'object' ? ` (${type})` : ''}` : type || 'any';
}

// A schema as a tree of its properties, $refs followed (each once per branch, so cycles end).
export function schemaTree(spec, schema, depth = 0, seen = new Set()) {
  const resolved = resolve(spec, schema);
  const name = refName(schema);
  const item = resolved.type === 'array' || (Array.isArray(resolved.type) && resolved.type.includes('array')) ? resolve(spec, resolved.items) : null;
  const target = item && item.properties ? item : resolved;
  const targetName = item && item.properties ? refName(resolved.items) : name;
  if (!target.properties || depth >= MAX_DEPTH || (targetName && seen.has(targetName))) return null;
  const branch = new Set(seen);
  if (targetName) branch.add(targetName);
  const required = new Set(target.required || []);
  const list = el('ul');
  for (const [property, value] of Object.entries(target.properties)) {
    const description = resolve(spec, value).description || value.description;
    list.append(el('li', {},
      el('span', { class: 'name' }, property), ' ',
      el('span', { class: 'type' }, typeOf(spec, value)),
      required.has(property) ? el('span', { class: 'req' }, ' required') : null,
      description ? el('div', { class: 'desc' }, inline(description)) : null,
      schemaTree(spec, value, depth + 1, branch)));
  }
  return list;
}

function schemaBlock(spec, schema) {
  return el('div', { class: 'schema' }, el('div', { class: 'type' }, typeOf(spec, schema)), schemaTree(spec, schema));
}

function parametersTable(spec, parameters) {
  const rows = parameters.map((parameter) => resolve(spec, parameter)).map((p) =>
    el('tr', {},
      el('td', {}, el('code', {}, p.name), p.required ? el('span', { class: 'req' }, ' required') : null),
      el('td', {}, p.in),
      el('td', {}, typeOf(spec, p.schema || {})),
      el('td', {}, inline(p.description || ''))));
  return el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'name'), el('th', {}, 'in'), el('th', {}, 'type'), el('th', {}, 'description'))), el('tbody', {}, rows));
}

function operationBody(spec, operation, pathItem) {
  const body = el('div', { class: 'op-body' });
  body.append(...markdown(operation.description || ''));
  const parameters = [...(pathItem.parameters || []), ...(operation.parameters || [])];
  if (parameters.length) body.append(el('h3', {}, 'Parameters'), parametersTable(spec, parameters));
  if (operation.requestBody) {
    const request = resolve(spec, operation.requestBody);
    body.append(el('h3', {}, 'Request body'), ...markdown(request.description || ''));
    for (const [type, media] of Object.entries(request.content || {})) {
      body.append(el('div', {}, el('code', {}, type)), schemaBlock(spec, media.schema || {}));
    }
  }
  body.append(el('h3', {}, 'Responses'));
  for (const [status, value] of Object.entries(operation.responses || {})) {
    const response = resolve(spec, value);
    body.append(el('div', {}, el('span', { class: 'status' }, status), ' ', inline(response.description || '')));
    for (const [type, media] of Object.entries(response.content || {})) {
      if (media['x-sse-events']) {
        const events = el('ul');
        for (const [event, schema] of Object.entries(media['x-sse-events'])) {
          events.append(el('li', {}, el('code', {}, `event: ${event}`), ' ', schemaBlock(spec, schema)));
        }
        body.append(el('div', {}, el('code', {}, type), ' frames:'), events);
      } else if (media.schema) {
        body.append(el('div', {}, el('code', {}, type)), schemaBlock(spec, media.schema));
      }
    }
  }
  return body;
}

export function render(spec, main) {
  main.replaceChildren();
  const info = spec.info || {};
  document.getElementById('docs-title').textContent = `${info.title || 'API'} ${info.version || ''}`.trim();
  main.append(el('details', { class: 'intro' }, el('summary', {}, 'About this API: errors, roles, the wire'), markdown(info.description || '')));
  const sections = new Map();
  for (const tag of spec.tags || []) {
    const section = el('section', { class: 'tag', 'data-tag': tag.name }, el('h2', {}, tag.name), tag.description ? el('p', {}, inline(tag.description)) : null);
    sections.set(tag.name, section);
    main.append(section);
  }
  let count = 0;
  for (const [path, pathItem] of Object.entries(spec.paths || {})) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      count += 1;
      const tag = (operation.tags || [])[0] || 'other';
      if (!sections.has(tag)) {
        const section = el('section', { class: 'tag', 'data-tag': tag }, el('h2', {}, tag));
        sections.set(tag, section);
        main.append(section);
      }
      const shownPath = pathItem['x-ralph-route'] || path;
      const details = el('details', {
        class: 'op', id: operation.operationId || `${method}-${path}`,
        'data-search': [method, shownPath, operation.summary, ...(operation.tags || []), operation['x-ralph-role']].join(' ').toLowerCase(),
      });
      const summary = el('summary', {},
        el('span', { class: `method ${method}` }, method),
        el('span', { class: 'path' }, shownPath),
        operation['x-ralph-role'] ? el('span', { class: 'role', title: 'the least role that may call it' }, operation['x-ralph-role']) : null,
        el('span', { class: 'summary' }, operation.summary || ''));
      details.append(summary);
      // The body is built when first opened: the whole contract at once is a lot of DOM for a phone.
      details.addEventListener('toggle', () => {
        if (details.open && details.childElementCount === 1) details.append(operationBody(spec, operation, pathItem));
      });
      sections.get(tag).append(details);
    }
  }
  return count;
}

export function applyFilter(main, text) {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  for (const section of main.querySelectorAll('section.tag')) {
    let shown = 0;
    for (const op of section.querySelectorAll('details.op')) {
      const match = words.every((word) => op.dataset.search.includes(word));
      op.hidden = !match;
      if (match) shown += 1;
    }
    section.hidden = shown === 0;
  }
}

async function main() {
  const mainElement = document.getElementById('docs-main');
  const status = document.getElementById('docs-status');
  try {
    const response = await fetch('/openapi.json', { headers: { accept: 'application/json' } });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      throw new Error(problem.error || `HTTP ${response.status}`);
    }
    const spec = await response.json();
    const count = render(spec, mainElement);
    document.body.dataset.operations = String(count);
    const filter = document.getElementById('docs-filter');
    filter.addEventListener('input', () => applyFilter(mainElement, filter.value));
    // `/docs#<operationId>` opens that operation, on load and when the link changes.
    const openLinked = () => {
      const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      if (target && target.matches('details.op')) {
        if (target.hidden) {
          // A link to an operation the filter hides: show everything again.
          filter.value = '';
          applyFilter(mainElement, '');
        }
        target.open = true;
        target.scrollIntoView({ block: 'start' });
      }
    };
    window.addEventListener('hashchange', openLinked);
    openLinked();
  } catch (error) {
    status.textContent = `The API contract could not be loaded: ${error.message}`;
    status.classList.add('error');
  }
}

if (typeof document !== 'undefined' && document.getElementById('docs-main')) main();
