import { ClientCreate, ContactCreate, ProjectCreate } from "@bizops/domain"
import * as Arbitrary from "effect/Arbitrary"

/** Schema-valid request bodies, derived from the domain schemas (their checks and generation hints included). */
export const clientCreate = Arbitrary.schema(ClientCreate)
export const contactCreate = Arbitrary.schema(ContactCreate)
export const projectCreate = Arbitrary.schema(ProjectCreate)
