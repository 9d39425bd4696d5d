"""MQTT 3.1.1 with paho-mqtt through both brokers the protocols suite uses: the responder's echo
at the level asked for, and the QoS rule a subscriber sees."""
import queue
import unittest
import uuid

import paho.mqtt.client as mqtt

import subjects


def round_trip(broker, publish_qos, subscribe_qos, payload=b"x" * 1024):
    """Publishes a request at `publish_qos` with a subscription to its answer at `subscribe_qos`:
    the answer's payload and the QoS it arrived at."""
    port = subjects.mqtt(broker)
    me = f"conformance-{uuid.uuid4().hex[:12]}"
    got = queue.Queue()
    subscribed = queue.Queue()
    connected = queue.Queue()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=me, protocol=mqtt.MQTTv311)
    c.on_message = lambda client, data, msg: got.put((msg.payload, msg.qos))
    c.on_subscribe = lambda client, data, mid, codes, props: subscribed.put(codes)
    c.on_connect = lambda client, data, flags, code, props: connected.put(code)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        # Subscribe once the broker has accepted the session: a SUBSCRIBE sent before the CONNACK
        # went unanswered by rumqttd once in a fresh .ci/run (no SUBACK within 10 s).
        code = connected.get(timeout=10)
        if code.is_failure:
            raise AssertionError(f"{broker} refused the connection: {code}")
        c.subscribe(f"bench/response/{me}", qos=subscribe_qos)
        subscribed.get(timeout=10)
        c.publish(f"bench/request/qos{publish_qos}/{me}", payload, qos=publish_qos)
        return got.get(timeout=10)
    finally:
        c.loop_stop()
        c.disconnect()


class Mqtt(unittest.TestCase):
    def test_the_responder_echoes_at_the_level_asked_for(self):
        for broker in ("mosquitto", "rumqttd"):
            for qos in (0, 1):
                with self.subTest(broker=broker, qos=qos):
                    payload, got_qos = round_trip(broker, qos, qos)
                    self.assertEqual((len(payload), got_qos), (1024, qos))

    def test_delivery_is_at_the_lower_of_published_and_granted_qos(self):
        # [MQTT-3.8.4-6]: "The QoS of Payload Messages sent in response to a Subscription MUST be
        # the minimum of the QoS of the originally published message and the maximum QoS granted
        # by the Server." The responder publishes at QoS 0; the subscription is granted QoS 1.
        _, got_qos = round_trip("mosquitto", 0, 1)
        self.assertEqual(got_qos, 0)

    def test_rumqttd_delivers_at_the_granted_qos(self):
        # rumqttd 0.20 breaks [MQTT-3.8.4-6]: it delivers at the granted QoS (an open upstream fix
        # in bytebeamio/rumqtt). Known, and kept out of the QoS rows: the responder subscribes to
        # each level at that level. When this fails, the fix has landed: assert the rule instead.
        _, got_qos = round_trip("rumqttd", 0, 1)
        self.assertEqual(got_qos, 1, "rumqttd now keeps the QoS rule")

if __name__ == "__main__":
    unittest.main()
