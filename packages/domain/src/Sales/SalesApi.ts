import { readEndpoints, resourceGroup } from "../Common/Crud.js"
import { Sale, SaleId, SaleList, SaleListParams } from "./Sale.js"

const sales = readEndpoints("sales", { id: SaleId, resource: Sale, listQuery: SaleListParams, list: SaleList }, {
  what: "a sale",
  list: "Lists sales, newest first. Filters status, channel, clientId, businessId, and saleDateFrom/saleDateTo (inclusive). `GET /payments?saleId=` lists a sale's payment and refunds."
})

/**
 * Read-only: a sale arrives settled through the import and changes only by refund or void. There is
 * no delete operation: `DELETE /sales/{id}` is answered 405 with `details.code` sale_not_deletable by
 * the server's route for it (not an endpoint, so it is neither documented nor able to delete).
 */
export class SalesApi extends resourceGroup(
  "sales",
  {
    title: "Sales",
    description: "Point-of-sale and imported sales: created settled, with their payment, and changed only by refund or void, never deleted (`DELETE /sales/{id}` is 405 with `details.code` sale_not_deletable). A voided sale is not revenue; clientId null is a walk-up sale."
  },
  sales.list, sales.get
) {}
