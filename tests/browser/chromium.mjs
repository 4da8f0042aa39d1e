// Flags for Debian's chromium under playwright-core: headless, no sandbox (root in CI), and no
// traffic of its own (these machines reach no network).
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];
