// Placeholder until the Electron demo lands (see the README's status section).
console.error(
  'The demo is not built yet: the Electron app (site + emulator + player) is still in progress.\n' +
    'Meanwhile, try the CLI test console: pnpm exec multidrm --help',
);
process.exit(1);
