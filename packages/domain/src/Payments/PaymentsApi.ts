import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Payment, PaymentCreate, PaymentId, PaymentList, PaymentListParams, PaymentUpdate } from "./Payment.js"

const payments = crudEndpoints("payments", { id: PaymentId, resource: Payment, create: PaymentCreate, update: PaymentUpdate, listQuery: PaymentListParams, list: PaymentList }, {
  what: "a payment",
  list: "Lists payments and refunds, newest first. Filters saleId, invoiceId, clientId.",
  create:
    "Records a payment, refund (negative amount, kind refund, refundOfId naming a payment of the same invoice) or adjustment on a sent or paid invoice; it succeeds at once (manual methods) and updates the invoice's amountPaid, balanceDue, status and paidAt in the same transaction.",
  update: "Updates a payment's reference and notes; any other field of the payment is 409 record_immutable. Payments cannot be deleted."
})

/** Payments have no DELETE: a payment is corrected by a refund or an adjustment. */
export class PaymentsApi extends resourceGroup(
  "payments",
  { title: "Payments", description: "Money received for invoices, refunds and adjustments; each updates its invoice in the same transaction." },
  payments.list, payments.create, payments.get, payments.update
) {}
