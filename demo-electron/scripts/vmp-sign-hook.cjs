// electron-builder loads hooks with require(); the step itself is TypeScript (vmp-sign.ts), which
// the Node that runs the packager (>= 22.18) loads natively.
exports.default = async function afterPack(context) {
  const { afterPack: sign } = await import('./vmp-sign.ts');
  sign(context);
};
