/** The long OpenAPI descriptions of the Demo API's operations (routes.ts), kept out of the route options. */

export const CITY_BY_ZIP_CODE_DESCRIPTION =
  'The cities a French postal code serves: ' +
  "La Poste's routing labels (libelleAcheminement, from the official data), distinct and sorted. " +
  'One zip code may serve several cities. ' +
  'A well-formed but unknown zip code is a 404 zip_code_not_found. ' +
  'A CEDEX code (mail to a business or an administration) is not where a home stands: a CEDEX label is never answered, and a code with only such labels (83998 CANJUERS CEDEX), like the CEDEX codes the data leaves out (75700), is a 404 zip_code_not_found whose detail says so. ' +
  "The answer is La Poste's data whatever the tariff covers: 975xx (Saint-Pierre-et-Miquelon) answers its cities, which /getPrice then refuses (422 zip_code_not_covered); " +
  'a code the data leaves out (97133 Saint-Barthélemy, 97150 Saint-Martin, 984xx French Southern and Antarctic Lands, 986xx Wallis-et-Futuna, 987xx French Polynesia, 988xx New Caledonia) is a 404 zip_code_not_found whose detail names the territory.';

export const HOME_QUOTE_DESCRIPTION =
  'Prices a home with the published rating table (zone of the département, housing type, occupancy, rooms and area, coverage level, construction year, floor, contents value, options, 9 % insurance tax) ' +
  'and returns the annual and monthly premiums, the coverages with their limits, and a signed quote reference valid 30 days. ' +
  'The city must be one of those /getCityByZipCode returns for the zip code, as typed (see the city field) or by the official name of one of its communes, ' +
  'and is answered as La Poste spells it: otherwise 422 city_mismatch, whose acceptedValues lists them. ' +
  'livingArea is in m², whole or to the hundredth (a value within 1e-9 of a hundredth, float noise, is read and answered as it), priced as given; it must suit the rooms (7 to 300 m² per main room), else 422 validation_failed naming livingArea. ' +
  'A CEDEX code is not where a home stands: 422 unknown_zip_code. ' +
  'A postal code of an overseas territory other than the overseas départements (97133 Saint-Barthélemy, 97150 Saint-Martin, 975xx Saint-Pierre-et-Miquelon, 984xx, 986xx, 987xx, 988xx) is a 422 zip_code_not_covered naming the territory: the home tariff covers metropolitan France and the overseas départements only. Nothing is stored.';
