"""Fixtures for system tests."""

import pytest

from emojiart_server import Server, free_port


@pytest.fixture
def server(tmp_path):
    instance = Server(tmp_path, free_port())
    instance.start()
    yield instance
    instance.kill()
