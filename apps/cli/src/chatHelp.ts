/**
 * What `parley chat` understands, said the same way by its prompt, `parley chat --help`, the README
 * and docs/cli.md: its own commands (a line that is only `.end` or `.exit`), and the built-in
 * scripted agent's keywords, which are part of a message (packages/runtime README).
 */
export const CHAT_COMMANDS = [
  'Type a message and press Enter. `.end` ends the session; `.exit` (or Ctrl-D) leaves it open.',
  'The built-in scripted agent (no model configured) answers keywords in a message:',
  '`/tool weather city=Paris`, `/buttons Yes | No`, `/end contained_resolved` (packages/runtime README).',
];
