/**
 * Updates the page in place: the view builds a fresh tree, and `patch` makes the live DOM look
 * like it while keeping every node that is still there. A focused button, a half-typed reason,
 * an open section and the scroll position belong to nodes, so they survive an update that a
 * `replaceChildren` of the whole page would throw away.
 *
 * Children are matched by key (`id`, else `data-key`) and otherwise by position and tag. Event
 * handlers are not attributes: `listen` records them on the element and one dispatcher per
 * event type calls the newest, so a kept node runs the handler of the latest render.
 */

type Handlers = Record<string, (e: Event) => void>;
interface Listening extends Element {
  __on?: Handlers;
  __attached?: Set<string>;
  /** The attributes the view set: the others are the element's own (a control reflects its tabindex, its focus). */
  __attrs?: Set<string>;
}

/** Records, before it goes into the page, which attributes of a new subtree the view set. */
function markOwned(n: Node): void {
  if (!(n instanceof Element)) return;
  (n as Listening).__attrs = new Set([...n.attributes].map((a) => a.name));
  for (const c of n.children) markOwned(c);
}

/** Gives `el` these handlers (replacing those of an earlier render). */
export function listen(el: Element, handlers: Handlers): void {
  const l = el as Listening;
  l.__on = handlers;
  l.__attached ??= new Set();
  for (const type of Object.keys(handlers)) {
    if (l.__attached.has(type)) continue;
    l.__attached.add(type);
    el.addEventListener(type, (e) => l.__on?.[type]?.(e));
  }
}

const keyOf = (n: Node): string | undefined => (n instanceof Element ? n.id || n.getAttribute('data-key') || undefined : undefined);

function sameKind(a: Node, b: Node): boolean {
  if (a.nodeType !== b.nodeType) return false;
  return !(a instanceof Element) || a.tagName === (b as Element).tagName;
}

function patchAttributes(live: Element, next: Element): void {
  const owned = (live as Listening).__attrs ?? new Set<string>();
  for (const name of owned) if (!next.hasAttribute(name)) live.removeAttribute(name);
  for (const { name, value } of [...next.attributes]) if (live.getAttribute(name) !== value) live.setAttribute(name, value);
  (live as Listening).__attrs = new Set([...next.attributes].map((a) => a.name));
}

function patchNode(live: Node, next: Node): void {
  if (live.nodeType === Node.TEXT_NODE) {
    if (live.nodeValue !== next.nodeValue) live.nodeValue = next.nodeValue;
    return;
  }
  if (!(live instanceof Element) || !(next instanceof Element)) return;
  patchAttributes(live, next);
  const handlers = (next as Listening).__on;
  if (handlers) listen(live, handlers);
  // Properties are not copied: a text box's value is the user's, and an update does not overwrite what they type.
  patchChildren(live, next);
}

/** Makes `live`'s children match `next`'s, moving kept nodes rather than recreating them. */
export function patchChildren(live: Element, next: Element): void {
  const wanted = [...next.childNodes];
  const wantedKeys = new Set(wanted.map(keyOf).filter((k): k is string => k !== undefined));
  const byKey = new Map<string, Node>();
  for (const c of [...live.childNodes]) {
    const k = keyOf(c);
    if (k === undefined) continue;
    // Gone first: moving a kept node past it would take the focus out of that node.
    if (!wantedKeys.has(k) || byKey.has(k)) c.remove();
    else byKey.set(k, c);
  }
  let cursor: ChildNode | null = live.firstChild;
  for (const n of wanted) {
    const k = keyOf(n);
    let match: Node | undefined;
    if (k !== undefined) {
      const found = byKey.get(k);
      byKey.delete(k);
      if (found && sameKind(found, n)) match = found;
      else found?.parentNode?.removeChild(found);
      // Unkeyed leftovers before the kept node go, so it stays where it is rather than moving.
      while (match && cursor && cursor !== match && keyOf(cursor) === undefined) {
        const after: ChildNode | null = cursor.nextSibling;
        cursor.remove();
        cursor = after;
      }
    } else if (cursor && keyOf(cursor) === undefined && sameKind(cursor, n)) {
      match = cursor;
    }
    if (match) {
      if (match !== cursor) live.insertBefore(match, cursor);
      else cursor = cursor.nextSibling;
      patchNode(match, n);
    } else {
      markOwned(n);
      live.insertBefore(n, cursor);
    }
  }
  // What is left after the cursor was not wanted any more.
  while (cursor) {
    const after: ChildNode | null = cursor.nextSibling;
    cursor.remove();
    cursor = after;
  }
}
