// The npm registry reachable from this project's machines serves only the platform builds of a
// native package (rollup's) that match these machines. `npm install` then leaves the other
// platforms' optional packages out of package-lock.json, and `npm ci` refuses the lock as out of
// sync. This script adds those optional entries back, each with the os/cpu/libc that npm needs to
// skip it on a machine it does not fit, so `npm ci` works here and anywhere else.
// Run it after `npm install` changes the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const OS = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "win32", "sunos", "aix", "netbsd"]
const CPU = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "mips64el", "ppc"]

const platformOf = (name) => {
  const tokens = name.split("/").pop().split("-")
  const os = tokens.find((t) => OS.includes(t))
  const cpu = tokens.find((t) => CPU.includes(t))
  if (!os || !cpu) return undefined
  const libc = tokens.some((t) => t.startsWith("musl")) ? "musl" : tokens.some((t) => t.startsWith("gnu")) ? "glibc" : undefined
  return { os: [os], cpu: [cpu], ...(libc && os === "linux" ? { libc: [libc] } : {}) }
}

let added = 0
for (const [key, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `node_modules/${dep}`
    if (packages[where]) continue
    const platform = platformOf(dep)
    if (!platform) continue
    packages[where] = { version: range.replace(/^[\^~=]/, ""), cpu: platform.cpu, optional: true, os: platform.os, ...(platform.libc ? { libc: platform.libc } : {}) }
    added++
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)))
lock.packages = sorted
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`complete-lockfile: added ${added} platform entries`)
