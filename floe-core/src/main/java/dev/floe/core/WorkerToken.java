package dev.floe.core;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The token of the workers a keeper starts elsewhere (the Flink job of a {@code flink} group): the
 * hex of HMAC-SHA256(api token, {@code "floe-worker"}). The keeper accepts it for the worker
 * protocol's calls only, so a job graph (which the cluster stores and shows to whoever reaches it)
 * carries neither the API token nor anything that opens the rest of the API, and the API token
 * cannot be computed back from it.
 */
public final class WorkerToken {

  private static final String PURPOSE = "floe-worker";

  private WorkerToken() {}

  /** The worker token of a keeper with this API token. */
  public static Secret derive(Secret apiToken) {
    requireNonNull(apiToken, "apiToken is null");
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(apiToken.reveal().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      byte[] digest = mac.doFinal(PURPOSE.getBytes(StandardCharsets.UTF_8));
      return Secret.of(HexFormat.of().formatHex(digest));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
