// Prints the plain closing line CI reads ("jest: N passed, N failed, N skipped"), after jest's own.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
