import countries from 'i18n-iso-countries';

/** Census state FIPS code (us-atlas feature id) -> USPS code. Includes DC and the inhabited territories. */
export const FIPS_TO_USPS: Readonly<Record<string, string>> = {
  '01': 'AL', '02': 'AK', '04': 'AZ', '05': 'AR', '06': 'CA', '08': 'CO', '09': 'CT', '10': 'DE',
  '11': 'DC', '12': 'FL', '13': 'GA', '15': 'HI', '16': 'ID', '17': 'IL', '18': 'IN', '19': 'IA',
  '20': 'KS', '21': 'KY', '22': 'LA', '23': 'ME', '24': 'MD', '25': 'MA', '26': 'MI', '27': 'MN',
  '28': 'MS', '29': 'MO', '30': 'MT', '31': 'NE', '32': 'NV', '33': 'NH', '34': 'NJ', '35': 'NM',
  '36': 'NY', '37': 'NC', '38': 'ND', '39': 'OH', '40': 'OK', '41': 'OR', '42': 'PA', '44': 'RI',
  '45': 'SC', '46': 'SD', '47': 'TN', '48': 'TX', '49': 'UT', '50': 'VT', '51': 'VA', '53': 'WA',
  '54': 'WV', '55': 'WI', '56': 'WY',
  '60': 'AS', '66': 'GU', '69': 'MP', '72': 'PR', '78': 'VI',
};

/**
 * ISO 3166-1 treats these US territories as countries of their own, while the Census
 * files list them next to the states. Keyed by USPS code.
 */
export const US_TERRITORY_ALPHA3: Readonly<Record<string, string>> = {
  AS: 'ASM', GU: 'GUM', MP: 'MNP', PR: 'PRI', VI: 'VIR',
};

/**
 * Natural Earth features that carry no ISO numeric code, mapped to the country that
 * administers them (null: sovereignty contested with no administering state).
 */
export const UNCODED_FEATURES: Readonly<Record<string, string | null>> = {
  Somaliland: 'SOM',
  // Kosovo has no ISO code; XKX is the user-assigned code used by the EU and most issuers.
  Kosovo: 'XKX',
  'N. Cyprus': 'CYP',
  'Cyprus U.N. Buffer Zone': 'CYP',
  Dhekelia: 'GBR',
  Akrotiri: 'GBR',
  'USNB Guantanamo Bay': 'CUB',
  'Siachen Glacier': 'IND',
  Baikonur: 'KAZ',
  'Indian Ocean Ter.': 'AUS', // split into CXR / CCK by PART_OVERRIDES
  'Coral Sea Is.': 'AUS',
  'Clipperton I.': 'FRA',
  'Bajo Nuevo Bank': 'COL',
  'Serranilla Bank': 'COL',
  'Spratly Is.': null,
  'Scarborough Reef': null,
};

/**
 * Natural Earth folds some overseas parts into their parent country, while ISO 3166-1
 * gives them their own code (a card issued in Réunion says REU, not FRA). A polygon part
 * of `parent` whose bbox centre lies in `box` [minLon, minLat, maxLon, maxLat] gets `code`.
 */
export const PART_OVERRIDES: ReadonlyArray<{ parent: string; code: string; box: readonly [number, number, number, number] }> = [
  { parent: 'FRA', code: 'GUF', box: [-55, 1.5, -51, 6.5] },
  { parent: 'FRA', code: 'MTQ', box: [-61.4, 14.2, -60.7, 15] },
  { parent: 'FRA', code: 'GLP', box: [-62, 15.7, -60.9, 16.7] },
  { parent: 'FRA', code: 'REU', box: [55, -21.6, 56, -20.7] },
  { parent: 'FRA', code: 'MYT', box: [44.8, -13.2, 45.5, -12.4] },
  { parent: 'NOR', code: 'SJM', box: [10, 74, 35, 81.5] }, // Svalbard; mainland islands stop at 71.2°N
  { parent: 'NOR', code: 'SJM', box: [-9.5, 70.5, -7.5, 71.5] }, // Jan Mayen
  { parent: 'NOR', code: 'BVT', box: [3, -54.7, 3.7, -54.2] },
  { parent: 'NLD', code: 'BES', box: [-68.6, 11.9, -62.8, 17.8] },
  { parent: 'AUS', code: 'CCK', box: [96, -12.5, 97.5, -11.5] },
  { parent: 'AUS', code: 'CXR', box: [105.4, -10.7, 105.9, -10.3] },
  // Natural Earth draws de facto control and files Crimea under Russia; ISO 3166, the UN and
  // the sanctions programmes a payments service must apply treat it as part of Ukraine.
  { parent: 'RUS', code: 'UKR', box: [32, 44, 37, 46.5] },
];

export function overrideFor(parent: string, centreLon: number, centreLat: number): string | null {
  for (const o of PART_OVERRIDES) {
    if (o.parent !== parent) continue;
    const [x0, y0, x1, y1] = o.box;
    if (centreLon < x0 || centreLon > x1 || centreLat < y0 || centreLat > y1) continue;
    return o.code;
  }
  return null;
}

/** ISO alpha-3 for a Natural Earth numeric id, or the override for an uncoded feature. */
export function alpha3ForFeature(id: string | number | undefined, name: string | undefined): string | null {
  if (id !== undefined && id !== null) return countries.numericToAlpha3(id) ?? null;
  if (name !== undefined && name in UNCODED_FEATURES) return UNCODED_FEATURES[name] ?? null;
  return null;
}

/** ISO alpha-2 (as used by GeoNames) for an alpha-3 code. */
export function alpha2For(alpha3: string): string | null {
  if (alpha3 === 'XKX') return 'XK'; // GeoNames files Kosovo under XK
  return countries.alpha3ToAlpha2(alpha3) ?? null;
}
