"""The Spark job's cases in one spark-submit (tests/spark.rs).

    spark-submit ... tests/spark_cases.py JOB CASES.json CODES.json

Runs the job (`integrations/spark/ozone_conform_spark.py`, path JOB) once per case of CASES.json (a list of
argument lists), each as spark-submit runs it: as `__main__` with those arguments, in a SparkSession of its
own (the job makes one and stops it). Only the driver's JVM and Python are shared, which is most of a
spark-submit's time. Writes each run's exit code to CODES.json; a run that raises ends this driver with it.
"""

import json
import runpy
import sys


def main(job, cases_file, codes_file):
    with open(cases_file, encoding="utf-8") as f:
        cases = json.load(f)
    codes = []
    for argv in cases:
        sys.argv = [job, *argv]
        try:
            runpy.run_path(job, run_name="__main__")
            codes.append(0)
        except SystemExit as e:
            codes.append(e.code if isinstance(e.code, int) else (0 if e.code is None else 1))
    with open(codes_file, "w", encoding="utf-8") as f:
        json.dump(codes, f)


if __name__ == "__main__":
    main(*sys.argv[1:4])
