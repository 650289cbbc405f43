/** Runs a standalone benchmark's main and exits with its outcome (its servers' handles would keep node alive). */
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
