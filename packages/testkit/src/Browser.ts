import { existsSync } from "node:fs"
import { join } from "node:path"

/** CHROMIUM_PATH, else `chromium` on the PATH; a browser test fails (never skips) when there is none. */
export const chromiumPath = (): string => {
  const fromEnv = process.env.CHROMIUM_PATH
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, "chromium"))) return join(dir, "chromium")
  }
  return "/usr/bin/chromium"
}
