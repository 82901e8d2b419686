package dev.floe.iceberg;

import dev.floe.core.error.FloeException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A warehouse on S3 or S3-compatible storage: the catalog's FileIO is Iceberg's {@link S3FileIO},
 * and before a command does any work the warehouse's bucket is listed once, so an endpoint that
 * cannot be reached, credentials it refuses or a bucket that does not exist stop the command with a
 * message that names them (and never the secret) instead of failing the first write halfway.
 */
final class S3Warehouse {

  private static final String S3_FILE_IO = S3FileIO.class.getName();

  private S3Warehouse() {}

  /**
   * Makes S3FileIO the catalog's FileIO when the warehouse is an {@code s3://} (or {@code s3a://},
   * {@code s3n://}) location or any {@code s3.*} property is set, unless {@code io-impl} is given.
   */
  static void useS3FileIo(Map<String, String> properties) {
    if (properties.containsKey(CatalogProperties.FILE_IO_IMPL)) {
      return;
    }
    boolean s3Settings = properties.keySet().stream().anyMatch(key -> key.startsWith("s3."));
    if (s3Settings || location(properties).isPresent()) {
      properties.put(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
    }
  }

  /**
   * Lists at most one object under the warehouse when it is on S3 through S3FileIO.
   *
   * @throws FloeException BAD_INPUT when the credentials are refused, the bucket does not exist or
   *     no region is set; SOURCE_UNAVAILABLE when the endpoint cannot be reached
   */
  static void check(String catalog, Map<String, String> properties) {
    Optional<String[]> location = location(properties);
    if (location.isEmpty() || !S3_FILE_IO.equals(properties.get(CatalogProperties.FILE_IO_IMPL))) {
      return;
    }
    String bucket = location.get()[0];
    String prefix = location.get()[1];
    String endpoint =
        properties.getOrDefault(S3FileIOProperties.ENDPOINT, "AWS S3's endpoint for the region");
    String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
    Map<String, String> once = new HashMap<>(properties);
    // one attempt: the check must answer in seconds, not after S3FileIO's 5 retries of up to 20 s
    once.put(S3FileIOProperties.S3_RETRY_NUM_RETRIES, "0");
    try (S3FileIO io = new S3FileIO()) {
      io.initialize(once);
      io.client().listObjectsV2(request -> request.bucket(bucket).prefix(prefix).maxKeys(1));
    } catch (S3Exception e) {
      String code =
          e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
      String where = "the warehouse " + warehouse + " of catalog '" + catalog + "' at " + endpoint;
      if (code.equals("NoSuchBucket") || e.statusCode() == 404) {
        throw FloeException.badInput(
            "The bucket '"
                + bucket
                + "' of "
                + where
                + " does not exist. Create it, or fix catalog.warehouse in floe.yaml.");
      }
      if (e.statusCode() == 403
          || code.equals("InvalidAccessKeyId")
          || code.equals("SignatureDoesNotMatch")
          || code.equals("AccessDenied")) {
        throw FloeException.badInput(
            "S3 refused the credentials for "
                + where
                + " ("
                + (code.isEmpty() ? "HTTP " + e.statusCode() : code)
                + "). Check catalog.s3-access-key-id and catalog.s3-secret-access-key in"
                + " floe.yaml, and that they may list and write the bucket.");
      }
      throw FloeException.sourceUnavailable(
          "S3 failed to list "
              + where
              + ": "
              + CatalogFactory.redact(CatalogFactory.causes(e), properties)
              + ". Check the catalog's s3-* settings in floe.yaml.",
          e);
    } catch (SdkClientException e) {
      String why = CatalogFactory.redact(CatalogFactory.causes(e), properties);
      if (why.toLowerCase(Locale.ROOT).contains("unable to load region")) {
        throw FloeException.badInput(
            "No S3 region is set for the warehouse "
                + warehouse
                + " of catalog '"
                + catalog
                + "'. Set catalog.s3-region in floe.yaml (e.g. s3-region: us-east-1).");
      }
      throw FloeException.sourceUnavailable(
          "Cannot reach S3 at "
              + endpoint
              + " for the warehouse "
              + warehouse
              + " of catalog '"
              + catalog
              + "': "
              + why
              + ". Check catalog.s3-endpoint in floe.yaml and that the endpoint is reachable.",
          e);
    } catch (SdkException e) {
      throw FloeException.sourceUnavailable(
          "S3 failed to list the warehouse "
              + warehouse
              + " of catalog '"
              + catalog
              + "': "
              + CatalogFactory.redact(CatalogFactory.causes(e), properties)
              + ".",
          e);
    }
  }

  /** The bucket and the key prefix of an S3 warehouse; empty for any other location. */
  private static Optional<String[]> location(Map<String, String> properties) {
    String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
    if (warehouse == null) {
      return Optional.empty();
    }
    String lower = warehouse.toLowerCase(Locale.ROOT);
    int schemeEnd = lower.indexOf("://");
    if (schemeEnd < 0 || !lower.substring(0, schemeEnd).matches("s3[an]?")) {
      return Optional.empty();
    }
    String rest = warehouse.substring(schemeEnd + 3);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    return Optional.of(new String[] {bucket, prefix});
  }
}
