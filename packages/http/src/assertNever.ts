/** Ends every `switch` over a union: adding a member without handling it fails the typecheck. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
