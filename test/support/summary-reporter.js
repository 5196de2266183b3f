// Prints the plain closing line CI reads ("jest: N passed, N failed, N skipped"), after jest's own.
// With ARBOR_REQUIRE_ALL=1 (set by .ci/run) a skipped test fails the run: suites that need Redis,
// Chromium or Tesseract skip on a machine without them, and CI must not pass by skipping them.
const path = require('node:path');

class SummaryReporter {
  constructor() {
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
    const names = results.testResults.flatMap((file) =>
      file.testResults
        .filter((t) => t.status === 'pending' || t.status === 'todo')
        .map((t) => `  ${path.relative(process.cwd(), file.testFilePath)}: ${t.fullName}`),
    );
    // A skipped test's name says what it needs and how to get it: shown on every run.
    if (names.length > 0 && process.env.ARBOR_REQUIRE_ALL !== '1') {
      process.stdout.write(`skipped, and why:\n${names.join('\n')}\n`);
    }
    if (process.env.ARBOR_REQUIRE_ALL === '1' && skipped > 0) {
      process.stdout.write(
        `ARBOR_REQUIRE_ALL=1: ${skipped} skipped test(s) count as failures here:\n${names.join('\n')}\n`,
      );
      this.error = new Error(`${skipped} test(s) skipped with ARBOR_REQUIRE_ALL=1`);
    }
  }

  getLastError() {
    return this.error;
  }
}
module.exports = SummaryReporter;
