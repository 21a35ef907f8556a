// For shell scripts (.ci/run): makes sure Node.js >= 24 is available and prints the directory to put
// first on PATH (nothing when the running Node is new enough). Runs on the machine's older Node.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from './lib/node.mjs';

const bin = ensureNode(resolve(fileURLToPath(import.meta.url), '../..'));
if (bin) process.stdout.write(`${bin}\n`);
