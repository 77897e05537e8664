package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.endpoints.AutoScalingEndpointProvider;
import software.amazon.awssdk.services.ec2.endpoints.Ec2EndpointProvider;

/**
 * The Auto Scaling client (one SDK release after the rest, see service/pom.xml) resolves AWS's
 * regional endpoints with the SDK core it runs on, as the moto tests cannot show (they override the
 * endpoint).
 */
class AutoScalingEndpointsResolveTest {

  @Test
  void autoScalingAndEc2ResolveTheirRegionalEndpoints() {
    assertEquals(
        "https://autoscaling.eu-west-1.amazonaws.com",
        AutoScalingEndpointProvider.defaultProvider()
            .resolveEndpoint(p -> p.region(Region.EU_WEST_1))
            .join()
            .url()
            .toString());
    assertEquals(
        "https://ec2.eu-west-1.amazonaws.com",
        Ec2EndpointProvider.defaultProvider()
            .resolveEndpoint(p -> p.region(Region.EU_WEST_1))
            .join()
            .url()
            .toString());
  }
}
