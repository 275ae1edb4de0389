# One image for every process: api, worker, beat and the one-shot migration.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    AUTOMATIONS_HOME=/data

WORKDIR /srv
COPY pyproject.toml README.md ./
COPY app ./app
COPY alembic ./alembic
COPY alembic.ini ./
COPY examples ./examples
RUN pip install . && useradd --system --create-home --home-dir /data automations
USER automations

EXPOSE 8000
CMD ["automations", "api", "--host", "0.0.0.0", "--port", "8000"]
