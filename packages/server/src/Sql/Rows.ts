/**
 * A row of a resource whose fields are its table's columns (camelCased by the client): the props its
 * class is made of. Columns the resource does not name (`organization_id`, a secret) may be in the row;
 * the class keeps only its fields.
 */
export type RowOf<Resource> = Resource extends new (props: infer Props, options?: infer _) => unknown ? Props : never

/**
 * Row → resource without re-validation: the database holds only what was validated on the way in.
 * `fromRow(Contact)` for a resource whose fields are its columns; a resource with columns of its own
 * shape (money in minor units, a venue in three columns) spreads the row and sets those fields.
 */
export const fromRow = <Props, A>(resource: new (props: Props, options?: { readonly disableChecks?: boolean }) => A) => (row: Props): A =>
  new resource(row, { disableChecks: true })
