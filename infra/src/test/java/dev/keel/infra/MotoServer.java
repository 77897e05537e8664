package dev.keel.infra;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * moto's server, the fake AWS of the integration tests: started on a free port of 127.0.0.1 before
 * the test class and stopped after it ({@code @RegisterExtension static final MotoServer moto = new
 * MotoServer();}). It hands out AWS SDK clients and the provider configuration that points OpenTofu
 * at it. Region eu-west-1: outside us-east-1, S3 answers a second CreateBucket of one's own bucket
 * with BucketAlreadyOwnedByYou, as the storage tests need.
 */
final class MotoServer implements BeforeAllCallback, AfterAllCallback {
  static final String REGION = "eu-west-1";
  static final String ACCOUNT = "123456789012";
  private static final String KEY = "test";

  private Process process;
  private Path log;
  private URI endpoint;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Path binary = InfraTools.motoServer();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    log = Files.createTempFile("keel-moto-", ".log");
    process =
        new ProcessBuilder(binary.toString(), "-H", "127.0.0.1", "-p", Integer.toString(port))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    endpoint = URI.create("http://127.0.0.1:" + port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!answers()) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "moto_server exited with " + process.exitValue() + ": " + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "moto_server did not answer on " + endpoint + " within 60 s: " + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  private boolean answers() {
    try {
      HttpURLConnection c =
          (HttpURLConnection) endpoint.resolve("/moto-api/").toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(2000);
      return c.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    if (process != null) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    Files.deleteIfExists(log);
  }

  URI endpoint() {
    return endpoint;
  }

  /**
   * Test credentials, and no calls to the real AWS that a provider or backend would make to check
   * them.
   */
  private static final String CREDENTIALS =
      """
        access_key                  = "%s"
        secret_key                  = "%s"
        skip_credentials_validation = true
        skip_requesting_account_id  = true
        skip_metadata_api_check     = true
        skip_region_validation      = true
      """
          .formatted(KEY, KEY);

  /**
   * An aws provider block pointed at moto (as an override file, it turns an existing one to moto).
   */
  String providerBlock() {
    return """
        provider "aws" {
          region                      = "%s"
        %s  s3_force_path_style         = true
          max_retries                 = 2
          endpoints {
            ec2         = "%3$s"
            autoscaling = "%3$s"
            iam         = "%3$s"
            sts         = "%3$s"
            s3          = "%3$s"
          }
        }
        """
        .formatted(REGION, CREDENTIALS, endpoint);
  }

  /** A -backend-config file for the s3 backend, state in moto (S3-native locking). */
  String s3BackendConfig(String bucket, String key) {
    return """
        bucket       = "%s"
        key          = "%s"
        region       = "%s"
        use_lockfile = true
        use_path_style = true
        %s
        endpoints = {
          s3  = "%5$s"
          sts = "%5$s"
        }
        """
        .formatted(bucket, key, REGION, CREDENTIALS, endpoint);
  }

  /** Two subnets of moto's default VPC (172.31.0.0/16) in this region. */
  List<String> defaultSubnetIds() {
    return ec2()
        .describeSubnets(r -> r.filters(f -> f.name("default-for-az").values("true")))
        .subnets()
        .stream()
        .map(s -> s.subnetId())
        .sorted()
        .limit(2)
        .toList();
  }

  /** An AMI moto knows (the launch template's image; moto boots nothing). */
  String someAmiId() {
    return ec2().describeImages(r -> r.owners("amazon")).images().get(0).imageId();
  }

  /** An instance profile with a role, as the iam module would make it, for the pool tests. */
  String instanceProfile(String name) {
    IamClient iam = iam();
    iam.createRole(
        r ->
            r.roleName(name)
                .assumeRolePolicyDocument(
                    "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"},\"Action\":\"sts:AssumeRole\"}]}"));
    iam.createInstanceProfile(r -> r.instanceProfileName(name));
    iam.addRoleToInstanceProfile(r -> r.instanceProfileName(name).roleName(name));
    return name;
  }

  S3Client s3() {
    return keep(S3Client.builder().forcePathStyle(true), REGION);
  }

  Ec2Client ec2() {
    return keep(Ec2Client.builder(), REGION);
  }

  AutoScalingClient autoscaling() {
    return keep(AutoScalingClient.builder(), REGION);
  }

  IamClient iam() {
    return keep(IamClient.builder(), "aws-global");
  }

  StsClient sts() {
    return keep(StsClient.builder(), REGION);
  }

  private <B extends AwsClientBuilder<B, C>, C extends AutoCloseable> C keep(
      B builder, String region) {
    C client =
        builder
            .endpointOverride(endpoint)
            .region(Region.of(region))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, KEY)))
            .build();
    clients.add(client);
    return client;
  }
}
