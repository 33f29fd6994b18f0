/** The site of the spec's worked example, as in the shared vectors. */
export const TUTO = {
  siteId: 'TUTO',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
