package dev.keel.storage;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** Shared, thread-safe S3 clients, one per {@link S3Settings}. */
public final class S3Clients {
  private static final Map<S3Settings, S3Client> CLIENTS = new ConcurrentHashMap<>();

  private S3Clients() {}

  /** The client of this process's AWS settings ({@link S3Settings#fromEnvironment()}). */
  public static S3Client fromEnvironment() {
    return get(S3Settings.fromEnvironment());
  }

  public static S3Client get(S3Settings settings) {
    return CLIENTS.computeIfAbsent(settings, S3Clients::build);
  }

  private static S3Client build(S3Settings s) {
    S3ClientBuilder b =
        S3Client.builder()
            .httpClientBuilder(
                ApacheHttpClient.builder()) // explicit: several HTTP clients are on the classpath
            .credentialsProvider(s.credentialsProvider());
    if (s.region() != null) {
      b.region(Region.of(s.region()));
    } else if (!regionChainResolves()) {
      // no AWS_REGION and no profile region: any region works once cross-region access is on
      b.region(Region.US_EAST_1).crossRegionAccessEnabled(true);
    }
    if (s.endpoint() != null) {
      b.endpointOverride(s.endpoint())
          // S3-compatible servers often lack the SDK's default trailing CRC checksums
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    b.forcePathStyle(s.pathStyle());
    return b.build();
  }

  private static boolean regionChainResolves() {
    try {
      return DefaultAwsRegionProviderChain.builder().build().getRegion() != null;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
