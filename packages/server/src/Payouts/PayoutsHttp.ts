import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { getWith, listWith } from "../Http/Respond.js"
import { PayoutsRepo } from "./PayoutsRepo.js"

export const PayoutsHttp = HttpApiBuilder.group(Api, "payouts", (handlers) =>
  Effect.map(PayoutsRepo, (payouts) => handlers.handleAll({ list: listWith(payouts.list), get: getWith(payouts.get) })))
