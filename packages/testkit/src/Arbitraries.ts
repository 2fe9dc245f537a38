import { ClientCreate, ContactCreate, ProjectCreate } from "@bizops/domain"
import * as Arbitrary from "effect/Arbitrary"

/** Schema-valid request bodies, derived from the domain schemas (their filters and annotations included). */
export const clientCreate = Arbitrary.make(ClientCreate)
export const contactCreate = Arbitrary.make(ContactCreate)
export const projectCreate = Arbitrary.make(ProjectCreate)
