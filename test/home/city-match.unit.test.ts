import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findZipCode, matchCity } from '../../src/reference/index.ts';

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
    assert.equal(match('17100', 'Saintes'), 'SAINTES', 'a word that merely starts with Saint is left alone');
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

  it('reads the arrondissements of Paris, Lyon and Marseille, and only those of the zip code', () => {
    assert.equal(match('75007', 'Paris 7e Arrondissement'), 'PARIS');
    assert.equal(match('75007', 'Paris 7ème'), 'PARIS');
    assert.equal(match('75007', 'PARIS 07'), 'PARIS');
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
