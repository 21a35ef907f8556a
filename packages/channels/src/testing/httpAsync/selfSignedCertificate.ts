import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
  keyFile: string;
  certFile: string;
  /** Removes the files. */
  remove(): void;
}

/**
 * A throwaway self-signed certificate (P-256, one day) for a loopback HTTPS receiver, made with the
 * openssl CLI because node:crypto cannot issue certificates. Valid for receiver.test, localhost and
 * 127.0.0.1, so tests can check that TLS verification stays on against the URL's host name.
 */
export function createSelfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=receiver.test',
      '-addext',
      'subjectAltName=DNS:receiver.test,DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    keyFile,
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
