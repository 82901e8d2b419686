package dev.floe.server.verify;

import dev.floe.core.config.VerificationSettings;
import dev.floe.core.verify.VerifyReport;
import java.time.ZoneId;

/** Runs one scheduled verification: {@link VerifyJobRunner} in the keeper. */
public interface VerificationRunner {

  /**
   * Runs it; blocks until it ends.
   *
   * @throws RuntimeException ({@link dev.floe.core.error.FloeException} with a message for people)
   *     when it could not compare
   */
  VerifyReport run(VerificationSettings verification);

  /**
   * The zone the verification's source server reports, for a verification whose {@code time-zone}
   * is not set.
   *
   * @throws RuntimeException ({@link dev.floe.core.error.FloeException} with a message for people)
   *     when the source cannot be asked
   */
  ZoneId sourceTimeZone(VerificationSettings verification);
}
