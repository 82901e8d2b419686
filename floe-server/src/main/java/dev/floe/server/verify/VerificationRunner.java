package dev.floe.server.verify;

import dev.floe.core.config.VerificationSettings;
import dev.floe.core.verify.VerifyReport;

/** Runs one scheduled verification: {@link VerifyJobRunner} in the keeper. */
@FunctionalInterface
public interface VerificationRunner {

  /**
   * Runs it; blocks until it ends.
   *
   * @throws RuntimeException ({@link dev.floe.core.error.FloeException} with a message for people)
   *     when it could not compare
   */
  VerifyReport run(VerificationSettings verification);
}
