// The `parley` bin started by a Node.js older than 24 (`npx parley` on a machine whose Node is 20):
// run it again with the repository's Node 24 (.tools/node, installed by `npm start`, `npm test` or
// .ci/run), or say in one line what to install. Plain JavaScript that runs on the older Node.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { envWithNode, olderNodeLine, toolsNodeBin, toolsNodeReady } from '../../../scripts/lib/node.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs `parley.js` with the repository's Node 24 and exits as it does. */
export function rerunWithNode24() {
  if (!toolsNodeReady(root)) {
    process.stderr.write(`${olderNodeLine()} (\`npm start\` installs it into .tools/node.)\n`);
    process.exit(1);
  }
  const bin = toolsNodeBin(root);
  const child = spawn(
    `${bin}/node`,
    [fileURLToPath(new URL('parley.js', import.meta.url)), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: envWithNode(bin),
    },
  );
  // Ctrl-C reaches the child through the terminal's process group; signals sent to this process alone
  // (a supervisor's SIGTERM) are passed on. Either way this process exits when the child does.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
