"""The two examples of docs/artifacts.md and docs/databases.md validate in a space that has what they use."""

from __future__ import annotations

from tests.databases.test_api_and_runs import register, secret
from tests.support.factories import Factory, example
from tests.support.fake_llm import TEST_MODEL


async def test_the_report_and_warehouse_examples_validate(factory: Factory, warehouse_dsn: str) -> None:
    owner = await factory.owner()
    await secret(owner, "warehouse_dsn", warehouse_dsn)
    assert (await register(owner)).status_code == 201
    warehouse = example("warehouse_summary.json")
    warehouse["plan"][1]["config"]["model"] = TEST_MODEL  # the models this installation allows
    for document in (example("report_link.json"), warehouse):
        answer = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": document}
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["errors"] == [], body
        assert body["valid"] is True
