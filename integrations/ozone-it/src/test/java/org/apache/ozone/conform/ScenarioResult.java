package org.apache.ozone.conform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Java side of a scenario saw, written to target/scenario-results/&lt;scenario&gt;.txt for run.sh's table.
 * Line 1: "reproduced=yes|no|n/a"; line 2: a one-line summary; then evidence lines.
 * Each evidence line is also logged (logger org.apache.ozone.conform.ScenarioResult) so it sits in the test output
 * beside Ozone's own lines.
 */
final class ScenarioResult {
  private static final Logger LOG = LoggerFactory.getLogger(ScenarioResult.class);
  private final String scenario;
  private final List<String> evidence = new ArrayList<>();

  ScenarioResult(String scenario) {
    this.scenario = scenario;
  }

  void evidence(String fmt, Object... args) {
    String line = String.format(fmt, args);
    LOG.info("[scenario {}] {}", scenario, line);
    evidence.add(line);
  }

  void write(String reproduced, String summary) throws IOException {
    Path dir = Paths.get(System.getProperty("scenario.results.dir", "target/scenario-results"));
    Files.createDirectories(dir);
    List<String> lines = new ArrayList<>();
    lines.add("reproduced=" + reproduced);
    lines.add(summary);
    lines.addAll(evidence);
    Files.write(dir.resolve(scenario + ".txt"), lines, StandardCharsets.UTF_8);
    LOG.info("[scenario {}] RESULT reproduced={} {}", scenario, reproduced, summary);
  }
}
