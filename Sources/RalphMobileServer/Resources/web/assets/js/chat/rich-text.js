// @ts-check
// Light formatting of a reply: ``` fenced blocks become code blocks, `inline code` and **bold** are kept; the rest is
// text with its line breaks. Built with DOM nodes only (never parsed as HTML).

import { h } from '../ui.js';

/** @param {string} text @returns {Node[]} */
export function formatText(text) {
  /** @type {Node[]} */
  const out = [];
  const fence = /```([^\n`]*)\n?([\s\S]*?)(?:```|$)/g;
  let last = 0;
  let match;
  while ((match = fence.exec(text)) !== null) {
    if (match.index > last) out.push(...paragraphs(text.slice(last, match.index)));
    out.push(h('pre', { class: 'code-block', 'data-lang': match[1].trim() || null }, h('code', {}, match[2].replace(/\n$/, ''))));
    last = fence.lastIndex;
    if (match[0].length === 0) break;
  }
  if (last < text.length) out.push(...paragraphs(text.slice(last)));
  return out;
}

/** @param {string} text */
function paragraphs(text) {
  return text.split(/\n{2,}/).filter((p) => p.trim()).map((p) => h('p', {}, inline(p.replace(/^\n+|\n+$/g, ''))));
}

/** @param {string} text */
function inline(text) {
  /** @type {Array<string | Node>} */
  const parts = [];
  const pattern = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let last = 0;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(match[1] !== undefined ? h('code', {}, match[1]) : h('strong', {}, match[2]));
    last = pattern.lastIndex;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}
