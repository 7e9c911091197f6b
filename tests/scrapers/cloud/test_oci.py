"""Oracle Cloud's price-list parser on a real response (tests/fixtures/oci)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import by_id, document, json_document

from scrapers.cloud.oci import OracleCloud
from scrapers.errors import ParseError


def test_oci_real_price_list_gpu_shapes():
    offers = by_id(OracleCloud().parse([document("oci/opencost_oci_pricelist_products_usd.json")]))
    h100 = offers[("BM.GPU.H100.8|B98415", "on_demand")]
    assert (h100.price, h100.price_unit, h100.gpu_count, h100.gpu_id) == (Decimal("10"), "gpu_hour", 8,
                                                                          "h100-sxm5-80gb")
    assert offers[("BM.GPU4.8|B92740", "on_demand")].price == Decimal("3.05")
    assert not any(key[0].startswith("BM.GPU.L40S") for key in offers)  # its part is not in this list
    with pytest.raises(ParseError, match="GPU Per Hour"):
        OracleCloud().parse([json_document({"items": [{"partNumber": "B1", "metricName": "OCPU Per Hour"}]})])
