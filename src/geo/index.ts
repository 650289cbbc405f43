export { reverseGeocode, loadGeoData, type GeoPlace } from './reverse-geocode';
export type { GeoDataStats } from './datasets';
