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

/**
 * The schema a cross-border (not SEPA) pain.001.001.09 file is checked against: the EPC schema with
 * exactly the SEPA-only rules such a file departs from lifted back to ISO 20022 pain.001.001.09's own
 * (no copy of the unrestricted ISO schema is in the repository; test/fixtures/reference/README.md):
 * the charge bearer may be DEBT, CRED or SHAR besides SLEV, and amounts follow the ISO base types
 * (InstdAmt up to 5 decimals, no 0.01 floor nor EUR ceiling; CtrlSum up to 17 decimals). Every other
 * rule — structure, identifiers, IBAN and BIC patterns, text lengths — stays the EPC schema's. Each
 * change is asserted to apply once, so a new schema file that moved them fails here, not silently.
 */
export function crossBorderXsd(): string {
  let schema = fs.readFileSync(EPC_SCT_XSD, 'utf8');
  const lift = (pattern: RegExp, replacement: string) => {
    const found = schema.match(pattern) ?? [];
    if (found.length !== 1) throw new Error(`the EPC schema has ${found.length} matches of ${pattern.source}`);
    schema = schema.replace(pattern, replacement);
  };
  lift(
    /(<xs:simpleType name="ChargeBearerType1Code">[\s\S]*?<xs:restriction base="xs:string">)[\s\S]*?(<\/xs:restriction>)/g,
    '$1<xs:enumeration value="DEBT"/><xs:enumeration value="CRED"/><xs:enumeration value="SHAR"/><xs:enumeration value="SLEV"/>$2',
  );
  lift(
    /(<xs:complexType name="ActiveOrHistoricCurrencyAndAmount_EPC132-08_2023_V1.0_SCT_C2PSP">[\s\S]*?<xs:restriction base="ActiveOrHistoricCurrencyAndAmount">)\s*<xs:maxInclusive value="999999999.99"\/>\s*<xs:minInclusive value="0.01"\/>\s*<xs:fractionDigits value="2"\/>/g,
    '$1',
  );
  lift(
    /(<xs:simpleType name="DecimalNumber">[\s\S]*?)<xs:fractionDigits value="2"\/>/g,
    '$1<xs:fractionDigits value="17"/>',
  );
  lift(
    /(<xs:simpleType name="DecimalNumber_EPC132-08_2023_V1.0_SCT_C2PSP">\s*<xs:restriction base="DecimalNumber">)\s*<xs:fractionDigits value="2"\/>/g,
    '$1',
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-xsd-'));
  const file = path.join(dir, 'pain.001.001.09-cross-border.xsd');
  fs.writeFileSync(file, schema);
  return file;
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
