"""SOAP with zeep, a client built from nothing but the service's WSDL (`GET /soap?wsdl`), as a
user's toolkit would: the operation it finds, its answer, and a Client fault for a bad size."""
import unittest

import zeep
from zeep.exceptions import Fault

import subjects


def client():
    plain, _ = subjects.rest()
    return zeep.Client(f"http://127.0.0.1:{plain}/soap?wsdl")


class Soap(unittest.TestCase):
    def test_the_wsdl_describes_an_operation_that_answers(self):
        c = client()
        self.assertIn("GetPayload", [op for op in c.service._binding._operations])
        message = c.service.GetPayload(size=1024)
        self.assertIsInstance(message, str)
        self.assertGreater(len(message), 0)

    def test_a_bad_size_is_a_client_fault(self):
        # SOAP 1.1 §4.4.1: a fault in the client's message is faultcode Client.
        with self.assertRaises(Fault) as fault:
            client().service.GetPayload(size=-1)
        self.assertTrue(str(fault.exception.code).endswith("Client"), fault.exception.code)


if __name__ == "__main__":
    unittest.main()
