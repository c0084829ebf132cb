/** Tables of the skins feature; db/types.ts merges them into the Database type. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the feature
export interface SkinsTables {}
