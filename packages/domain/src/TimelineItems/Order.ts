/**
 * The order of a day's items (issue 6): sortOrder is the position in the day, dense from 0. Pure rules
 * for where an insert or a move lands; the server applies them under the day's lock.
 */

/** Where a new item goes among `count` items: the requested position, or the end (a position past the end appends). */
export const insertPosition = (requested: number | undefined, count: number): number =>
  Math.max(0, Math.min(requested ?? count, count))

/** Where a moved item goes among `count` items (itself included): the requested position, at most the last. */
export const movePosition = (requested: number, count: number): number => Math.max(0, Math.min(requested, count - 1))

/**
 * The day's ids after moving `id` to `position` (clamped): the others keep their order, and every item's new
 * sortOrder is its index.
 */
export const moveTo = <Id>(ordered: ReadonlyArray<Id>, id: Id, position: number): ReadonlyArray<Id> => {
  const others = ordered.filter((other) => other !== id)
  const at = Math.max(0, Math.min(position, others.length))
  return [...others.slice(0, at), id, ...others.slice(at)]
}
