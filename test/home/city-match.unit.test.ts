import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findZipCode, matchCity } from '../../src/reference/index.ts';
import { cityKey } from '../../src/reference/postal-codes.ts';

/** What a customer types in an address form, against La Poste's routing labels (src/reference/postal-codes.ts). */
const match = (zipCode: string, city: string) => {
  const zip = findZipCode(zipCode);
  assert.ok(zip, `${zipCode} is in La Poste's data`);
  return matchCity(zip, city);
};

describe('the city of a zip code, as a customer types it', () => {
  it('finds a label La Poste abbreviates from Saint and Sainte, and a full label from St', () => {
    assert.equal(match('13210', 'Saint-Rémy-de-Provence'), 'ST REMY DE PROVENCE');
    assert.equal(match('13210', 'St Rémy de Provence'), 'ST REMY DE PROVENCE');
    assert.equal(match('97400', 'St-Denis'), 'SAINT DENIS');
    assert.equal(match('97400', 'St. Denis'), 'SAINT DENIS');
    assert.equal(
      cityKey('Saintes-Maries-de-la-Mer'),
      'SAINTES MARIES DE LA MER',
      'a word that merely starts with Saint is left alone',
    );
    assert.equal(match('13460', 'Saintes-Maries-de-la-Mer'), 'LES STES MARIES DE LA MER', 'by its official name');
  });

  it('refuses a Sainte for a Saint (and a Ste for a St): they are other names', () => {
    assert.equal(match('13210', 'Sainte-Rémy-de-Provence'), undefined, 'ST REMY DE PROVENCE');
    assert.equal(match('97400', 'Ste-Denis'), undefined, 'SAINT DENIS');
    assert.equal(match('57855', 'Ste Privat la Montagne'), undefined);
  });

  it('keeps the spelling typed where a zip code has a label with Saint and one with St', () => {
    // 71460: SAINT-MICAUD is Saint-Micaud's label, ST MICAUD Marigny's; quotes bind the label they found
    assert.equal(match('71460', 'St-Micaud'), 'ST MICAUD');
    assert.equal(match('71460', 'st micaud'), 'ST MICAUD');
    assert.equal(match('71460', 'Saint-Micaud'), 'SAINT-MICAUD');
    assert.equal(match('71460', 'Marigny'), 'ST MICAUD');
    assert.equal(match('57855', 'St Privat la Montagne'), 'ST PRIVAT LA MONTAGNE');
    assert.equal(match('57855', 'Saint Privat la Montagne'), 'SAINT-PRIVAT-LA-MONTAGNE');
    assert.equal(match('48340', 'St-Germain-du-Teil'), 'ST GERMAIN DU TEIL');
    assert.equal(match('48340', 'Saint Germain du Teil'), 'SAINT-GERMAIN-DU-TEIL');
  });

  it('spells out the ligatures œ and æ', () => {
    assert.equal(match('14700', 'Bonnœil'), 'BONNOEIL');
    assert.equal(match('14700', 'BONNŒIL'), 'BONNOEIL');
  });

  it('finds a commune by its official name when La Poste cut or changed the label', () => {
    assert.equal(match('14280', 'Saint-Germain-la-Blanche-Herbe'), 'ST GERMAIN LA BLANCHE HERB');
    assert.equal(match('20167', 'Ajaccio'), 'MEZZAVIA', 'the part of Ajaccio routed as MEZZAVIA');
    assert.equal(match('13520', 'Les Baux-de-Provence'), 'BAUX-DE-PROVENCE (LES)');
  });

  it("answers a commune's official name with its own label, not another commune's that differs by a Saint", () => {
    // 71800: Ouroux's label is OUROUX SS LE BOIS STE MARI; OUROUX SOUS LE BOIS STE MARIE is Ozolles's
    assert.equal(match('71800', 'Ouroux-sous-le-Bois-Sainte-Marie'), 'OUROUX SS LE BOIS STE MARI');
    assert.equal(match('71800', 'Ozolles'), 'OUROUX SOUS LE BOIS STE MARIE');
    assert.equal(match('71800', 'Ouroux sous le Bois Ste Marie'), 'OUROUX SOUS LE BOIS STE MARIE', 'a label as typed');
  });

  it("refuses a commune's name where its label is another département's", () => {
    // 75015 routes a corner of Issy-les-Moulineaux (92) as PARIS, the label of Paris 15e (75): a quote
    // for PARIS would be zoned in Paris, and the customer's address in Issy is not PARIS 75015
    assert.equal(match('75015', 'Issy-les-Moulineaux'), undefined);
    assert.equal(findZipCode('75015')!.departments.get('PARIS'), '75');
    assert.equal(match('92130', 'Issy-les-Moulineaux'), 'ISSY LES MOULINEAUX');
  });

  it('reads the arrondissements of Paris, Lyon and Marseille, and only those of the zip code', () => {
    assert.equal(match('75007', 'Paris 7e Arrondissement'), 'PARIS');
    assert.equal(match('75007', 'Paris 7ème'), 'PARIS');
    assert.equal(match('75007', 'PARIS 07'), 'PARIS');
    assert.equal(match('75007', 'Paris 7e arr.'), 'PARIS');
    assert.equal(match('75116', 'Paris'), 'PARIS 16', "75116's only label: Paris 16e");
    assert.equal(match('75116', 'Paris 16e'), 'PARIS 16');
    assert.equal(match('69007', 'Lyon 7e'), 'LYON');
    assert.equal(match('13001', 'Marseille 1er'), 'MARSEILLE');
    assert.equal(match('13007', 'Marseille 6e'), 'MARSEILLE 6EME', 'the part of the 6th served by 13007');
    assert.equal(match('13007', 'Marseille 7e'), 'MARSEILLE');
    assert.equal(match('69007', 'Lyon 8e'), undefined, '69007 does not serve the 8th arrondissement');
    assert.equal(match('75007', 'Paris 16e'), undefined);
  });

  it('still refuses a city the zip code does not serve, and a blank one', () => {
    assert.equal(match('20000', 'BASTIA'), undefined);
    assert.equal(match('75007', 'Saint-Denis'), undefined);
    assert.equal(match('75007', '   '), undefined);
    assert.equal(match('75007', 'paris'), 'PARIS');
  });
});
