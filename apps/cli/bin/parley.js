#!/usr/bin/env node
// The `parley` command. Parley's packages are TypeScript sources (internal
// "just-in-time" packages), so the CLI registers tsx's loader before loading
// them; see docs/decisions.md ("Running TypeScript without a build step").
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
