import { Schema } from "effect"
import { DateTimeParam, IntFromString } from "./Values.js"

export const MAX_PAGE_SIZE = 100
export const DEFAULT_PAGE_SIZE = 25

export const PaginationMeta = Schema.Struct({
  page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  pageSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  total: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  totalPages: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  hasMore: Schema.Boolean
}).annotate({ identifier: "PaginationMeta" })
export type PaginationMeta = typeof PaginationMeta.Type

/** The list envelope: `{ data, pagination }`. */
export const ListOf = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), pagination: PaginationMeta }).annotate({ identifier })

const Page = IntFromString.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be 1 or more" }))
const PageSize = IntFromString.check(
  Schema.isBetween({ minimum: 1, maximum: MAX_PAGE_SIZE }, { message: `must be between 1 and ${MAX_PAGE_SIZE}` })
)

/** Query parameters every list takes. */
export const ListParams = {
  page: Schema.optionalKey(Page),
  pageSize: Schema.optionalKey(PageSize),
  updatedSince: Schema.optionalKey(DateTimeParam)
}

/** The filters of a list: its query's fields but the page asked for (`Filters<typeof PaymentListParams>`). */
export type Filters<Params extends { readonly Type: object }> = Omit<Params["Type"], "page" | "pageSize">

export interface PageRequest {
  readonly page: number
  readonly pageSize: number
}

/** The page asked for, with the defaults filled in. */
export const pageRequest = (params: { readonly page?: number | undefined; readonly pageSize?: number | undefined }): PageRequest => ({
  page: params.page ?? 1,
  pageSize: params.pageSize ?? DEFAULT_PAGE_SIZE
})

/** Rows to skip for a page. */
export const offsetOf = ({ page, pageSize }: PageRequest): number => (page - 1) * pageSize

/** The pagination block of a list, from the page asked for and the total number of matching records. */
export const paginationMeta = ({ page, pageSize }: PageRequest, total: number): PaginationMeta => {
  const totalPages = Math.ceil(total / pageSize)
  return { page, pageSize, total, totalPages, hasMore: page < totalPages }
}
