import { isIP } from 'node:net';
import { z } from 'zod';

/** The provider of a `voice` connection whose calls come from the operator's own SIP gateway. */
export const BYOC_SIP_PROVIDER = 'byoc_sip';

/** A DNS name (RFC 1123 labels) or an IPv4/IPv6 address, without scheme, port or path. */
const host = z
  .string()
  .min(1)
  .max(253)
  .refine(
    (value) =>
      isIP(value) !== 0 ||
      /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
        value,
      ),
    { message: 'a host name or an IP address (no scheme, port or path)' },
  );

/**
 * Settings of a `byoc_sip` connection (spec 001 "Voice configuration": a SIP gateway address and
 * port): where the operator's SIP gateway is, the one that receives the carrier's calls and opens
 * the voice gateway socket. Port 5060 (SIP over UDP/TCP) or 5061 (TLS) by default.
 */
export const byocSipSettingsSchema = z.looseObject({
  sipGateway: z.strictObject({
    host,
    port: z.int().min(1).max(65_535).optional(),
    transport: z.enum(['udp', 'tcp', 'tls']).optional(),
  }),
});
