/**
 * camt.054 notifications for the tests, written from the ISO 20022 message structure
 * (BankToCustomerDebitCreditNotification; no XSD of it in the repository, and no network to fetch
 * one): `.001.02` writes the entry status as `<Sts>BOOK</Sts>`, `.001.08` as `<Sts><Cd>BOOK</Cd></Sts>`.
 */

export type CamtVersion = '02' | '08';

export interface CamtTransaction {
  endToEndId?: string;
  /** A return: the reason code (AC04, AG01, MD07…) and the bank's additional information. */
  returned?: { code?: string; proprietary?: string; info?: string; originalEndToEndId?: string };
  /** The transaction's amount (default 30.00), `null`: none given for it. */
  amount?: string | null;
  /** Its currency (default EUR). */
  currency?: string;
  /** The instructed amount (`AmtDtls/InstdAmt`, from .08): the pain.001's amount in its currency. */
  instructed?: { amount: string; currency: string };
  /** The transaction's own indicator (optional in the message; the entry's applies without it). */
  indicator?: 'CRDT' | 'DBIT';
}

export interface CamtEntry {
  indicator: 'CRDT' | 'DBIT';
  status?: 'BOOK' | 'PDNG' | 'INFO';
  /** `RvslInd`: the entry reverses an earlier one (a credit reversing a debit). */
  reversal?: boolean;
  amount?: string;
  /** Several: a batch-booked entry. None: an entry booked without transaction details. */
  transactions: CamtTransaction[];
}

export function camt054(version: CamtVersion, entries: CamtEntry[], messageId = 'BANK-NTF-0001'): string {
  let reference = 0;
  const status = (s: string) => (version === '02' ? `<Sts>${s}</Sts>` : `<Sts><Cd>${s}</Cd></Sts>`);
  const tx = (t: CamtTransaction, entry: CamtEntry) => {
    const amount = t.amount === undefined ? '30.00' : t.amount;
    const currency = t.currency ?? 'EUR';
    const amountXml =
      version === '02'
        ? amount === null
          ? ''
          : `<AmtDtls><TxAmt><Amt Ccy="${currency}">${amount}</Amt></TxAmt></AmtDtls>`
        : `${amount === null ? '' : `<Amt Ccy="${currency}">${amount}</Amt>\n              `}<CdtDbtInd>${t.indicator ?? entry.indicator}</CdtDbtInd>${
            t.instructed
              ? `<AmtDtls><InstdAmt><Amt Ccy="${t.instructed.currency}">${t.instructed.amount}</Amt></InstdAmt></AmtDtls>`
              : ''
          }`;
    const returned = t.returned
      ? `
              <RtrInf>
                ${t.returned.originalEndToEndId ? `<OrgnlEndToEndId>${t.returned.originalEndToEndId}</OrgnlEndToEndId>` : ''}
                <Rsn>${t.returned.code ? `<Cd>${t.returned.code}</Cd>` : `<Prtry>${t.returned.proprietary ?? 'X'}</Prtry>`}</Rsn>
                ${t.returned.info ? `<AddtlInf>${t.returned.info}</AddtlInf>` : ''}
              </RtrInf>`
      : '';
    return `
            <TxDtls>
              <Refs>
                <AcctSvcrRef>BANKREF-${(reference += 1)}</AcctSvcrRef>
                ${t.endToEndId ? `<EndToEndId>${t.endToEndId}</EndToEndId>` : ''}
              </Refs>
              ${amountXml}${returned}
            </TxDtls>`;
  };
  const entry = (e: CamtEntry, i: number) => `
      <Ntry>
        <NtryRef>${i + 1}</NtryRef>
        <Amt Ccy="EUR">${e.amount ?? '30.00'}</Amt>
        <CdtDbtInd>${e.indicator}</CdtDbtInd>${e.reversal ? '\n        <RvslInd>true</RvslInd>' : ''}
        ${status(e.status ?? 'BOOK')}
        <BookgDt><Dt>2026-12-01</Dt></BookgDt>
        <ValDt><Dt>2026-12-01</Dt></ValDt>
        <AcctSvcrRef>ENTRY-${i + 1}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${e.indicator === 'DBIT' ? 'ICDT' : 'RCDT'}</Cd><SubFmlyCd>${
          e.transactions.some((t) => t.returned) ? 'RRTN' : 'ESCT'
        }</SubFmlyCd></Fmly></Domn></BkTxCd>${
          e.transactions.length
            ? `
        <NtryDtls>${e.transactions.length > 1 ? `\n          <Btch><NbOfTxs>${e.transactions.length}</NbOfTxs></Btch>` : ''}${e.transactions.map((t) => tx(t, e)).join('')}
        </NtryDtls>`
            : ''
        }
      </Ntry>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.${version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr>
      <MsgId>${messageId}</MsgId>
      <CreDtTm>2026-12-01T18:00:00</CreDtTm>
    </GrpHdr>
    <Ntfctn>
      <Id>NTF-1</Id>
      <CreDtTm>2026-12-01T18:00:00</CreDtTm>
      <Acct><Id><IBAN>FR7630006000011234567890189</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.map(entry).join('')}
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>
`;
}
