import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { epcSctXsdPath } from '../fixtures/reference.ts';

/**
 * Validates XML against the EPC SEPA Credit Transfer schema (pain.001.001.09, EPC132-08 2023) with
 * libxml2's `xmllint --schema`. No xmllint is a failure, never a skip: install the Debian package
 * `libxml2-utils`.
 */

/** The EPC schema, copied into the repository (test/fixtures/reference/README.md). */
export const EPC_SCT_XSD = epcSctXsdPath;

export interface XmllintResult {
  valid: boolean;
  output: string;
}

export function validateWithXmllint(xml: string, xsd: string = EPC_SCT_XSD): XmllintResult {
  if (!fs.existsSync(xsd)) throw new Error(`The EPC schema is needed by these tests: ${xsd}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-sepa-'));
  const file = path.join(dir, 'file.xml');
  try {
    fs.writeFileSync(file, xml);
    const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, file], { encoding: 'utf8' });
    if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        'xmllint is not installed: install the Debian package libxml2-utils (apt-get install -y libxml2-utils) — these tests validate every SEPA file with it',
      );
    }
    if (run.error) throw run.error;
    return { valid: run.status === 0, output: `${run.stdout}${run.stderr}`.replaceAll(file, 'file.xml') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
