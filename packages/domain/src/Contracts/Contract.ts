/**
 * The Contract resource (issue 16; specification "Contract"; contract: "Contracts, client documents,
 * milestones"): standalone contracts with a client, numbered from the organization's series C-0001, ...
 * Creation makes drafts only; the signing flow and the rich-text content are managed outside the API.
 */
import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ContactId } from "../Contacts/Contact.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BooleanParam, BoundedString, DateOnly, DateTime, Email, MoneyAmount, Uuid, formatSeriesNumber } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"
import { ContractStatuses } from "./Moves.js"

export const ContractId = Uuid.pipe(Schema.brand("ContractId"))
export type ContractId = typeof ContractId.Type

export const ContractStatus = Schema.Literals(ContractStatuses)
export type ContractStatus = typeof ContractStatus.Type

/** Who signs: the client alone, the client and then the operator, or the client with the operator's signature added automatically. */
export const SigningMode = Schema.Literals(["client_only", "counter_sign", "auto_counter_sign"])
export type SigningMode = typeof SigningMode.Type

export const ContentType = Schema.Literals(["richtext", "pdf"])
export type ContentType = typeof ContentType.Type

/** The longest title of a contract (section 8). */
export const MAX_CONTRACT_TITLE = 300

/** One person who signs a contract. Signers are managed by the signing flow, outside the API. */
export const Signer = Schema.Struct({
  contactId: Schema.NullOr(ContactId),
  name: Schema.String,
  email: Schema.Union([Email, Schema.Literal("")]).annotate({ description: "The signer's email address, or the empty string when none is known" }),
  role: Schema.String,
  order: Schema.Int.annotate({ description: "The signer's place in the signing order" }),
  status: Schema.String.annotate({ description: "The signer's progress, as the signing flow reports it" }),
  signedAt: Schema.NullOr(DateTime)
}).annotate({ identifier: "ContractSigner" })
export type Signer = typeof Signer.Type

export class Contract extends Schema.Class<Contract>("Contract")({
  id: ContractId,
  contractNumber: Schema.String,
  title: Schema.String,
  clientId: ClientId,
  billingContactId: Schema.NullOr(ContactId),
  projectId: Schema.NullOr(ProjectId),
  sourceTemplateId: Schema.NullOr(Uuid),
  status: ContractStatus,
  signingMode: SigningMode,
  contentType: ContentType,
  issueDate: Schema.NullOr(DateOnly),
  effectiveDate: Schema.NullOr(DateOnly),
  expirationDate: Schema.NullOr(DateOnly),
  signedDate: Schema.NullOr(DateTime),
  currency: Schema.String,
  contractValue: Schema.NullOr(MoneyAmount),
  signers: Schema.Array(Signer),
  archived: Schema.Boolean,
  archivedAt: Schema.NullOr(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** A contract expires on or after the day it takes effect (either date may be unknown). */
export const contractDatesInOrder = (d: {
  readonly effectiveDate?: string | null | undefined
  readonly expirationDate?: string | null | undefined
}): boolean => d.effectiveDate == null || d.expirationDate == null || d.effectiveDate <= d.expirationDate

export const EXPIRATION_DATE_MESSAGE = "must be on or after effectiveDate"

/** The check of both bodies: the dates they give are in order (the stored ones are checked by `checkContractDates`). */
const datesInOrder = Schema.makeFilter((d: { readonly effectiveDate?: string | null; readonly expirationDate?: string | null }) =>
  contractDatesInOrder(d) || { path: ["expirationDate"], issue: EXPIRATION_DATE_MESSAGE }
)

const Title = BoundedString(1, MAX_CONTRACT_TITLE)

export const ContractCreate = Schema.Struct({
  title: Title,
  clientId: ClientId,
  billingContactId: Schema.optionalKey(Schema.NullOr(ContactId)),
  projectId: Schema.optionalKey(Schema.NullOr(ProjectId)),
  sourceTemplateId: Schema.optionalKey(Schema.NullOr(Uuid)),
  issueDate: Schema.optionalKey(Schema.NullOr(DateOnly)),
  effectiveDate: Schema.optionalKey(Schema.NullOr(DateOnly)),
  expirationDate: Schema.optionalKey(Schema.NullOr(DateOnly)),
  contractValue: Schema.optionalKey(Schema.NullOr(MoneyAmount))
}).annotate({
  examples: [{
    title: "Wedding photography agreement",
    clientId: ClientId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"),
    effectiveDate: "2027-06-01",
    expirationDate: "2027-12-31",
    contractValue: 4800
  }]
}).check(datesInOrder).annotate({ identifier: "ContractCreate" })
export type ContractCreate = typeof ContractCreate.Type

export const ContractUpdate = Schema.Struct({
  title: Schema.optionalKey(Title),
  effectiveDate: Schema.optionalKey(Schema.NullOr(DateOnly)),
  expirationDate: Schema.optionalKey(Schema.NullOr(DateOnly)),
  archived: Schema.optionalKey(Schema.Boolean)
}).annotate({ examples: [{ expirationDate: "2028-06-30" }, { archived: true }] }).check(datesInOrder).annotate({ identifier: "ContractUpdate" })
export type ContractUpdate = typeof ContractUpdate.Type

export const ContractListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optionalKey(ClientId),
  projectId: Schema.optionalKey(ProjectId),
  status: Schema.optionalKey(ContractStatus),
  archived: Schema.optionalKey(BooleanParam)
})

export const ContractList = ListOf(Contract, "ContractList")

/** `data.previousDates` of `contract_amended`: the contract's dates before the amendment. */
export const ContractPreviousDates = Schema.Struct({
  effectiveDate: Schema.NullOr(DateOnly),
  expirationDate: Schema.NullOr(DateOnly)
}).annotate({ identifier: "ContractPreviousDates", description: "The contract's effectiveDate and expirationDate before the amendment" })
export type ContractPreviousDates = typeof ContractPreviousDates.Type

/** The number of the n-th contract of an organization's series: C-0001, ..., C-9999, C-10000. */
export const formatContractNumber = (n: number): string => formatSeriesNumber("C", n)
