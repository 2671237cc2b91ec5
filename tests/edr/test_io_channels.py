"""edr.io.channels: name cleaning and the default ECG / respiration choice."""

from __future__ import annotations

import pytest

from edr.errors import ChannelError
from edr.io.channels import (
    choose_ecg,
    choose_resp,
    clean_name,
    ecg_channels,
    is_ecg_name,
    is_resp_name,
)


@pytest.mark.parametrize("raw, clean",
                         [("II,", "II"), (" RESP, ", "RESP"), ("ECG1", "ECG1"), ("V,,", "V")])
def test_clean_name(raw, clean):
    assert clean_name(raw) == clean


@pytest.mark.parametrize("names, expected", [
    (["RESP,", "PLETH,", "V,", "AVR,", "II,"], "II,"),       # BIDMC order, commas
    (["V5", "MLII"], "MLII"),                                 # MIT-BIH arrhythmia
    (["ABP", "MCL1", "RESP"], "MCL1"),                        # mimicdb
    (["RESP", "ECG", "BP"], "ECG"),                           # Fantasia
    (["I", "II", "RESP", "SCG"], "II"),                       # CEBS
    (["Resp C", "ECG", "SpO2"], "ECG"),                       # Apnea-ECG r records
    (["EEG (C4-A1)", "ECG", "BP", "Resp (sum)"], "ECG"),      # slpdb
    (["avf", "avl", "iii"], "iii"),                           # case-insensitive ranking
    (["ECG Lead II", "EKG"], "ECG Lead II"),                  # prefixes ignored for the rank
    (["V3", "V1"], "V1"),
    (["CM5", "PLETH"], "CM5"),
])
def test_default_ecg_choice(names, expected):
    assert names[choose_ecg(names, source="rec")] == expected


def test_requested_channel_is_matched_case_insensitively_without_commas():
    names = ["RESP,", "V,", "II,"]
    assert choose_ecg(names, "v", source="rec") == 1
    assert choose_ecg(names, "II,", source="rec") == 2


def test_ecg_and_resp_name_sets():
    for name in ("II", "MLII", "ECG", "ECG2", "V4", "aVR", "MCL1", "ML5", "ECG II"):
        assert is_ecg_name(name), name
    for name in ("RESP", "PLETH", "ABP", "ART", "CVP", "SpO2", "EEG (C4-A1)", "EMG", "SCG",
                 "BP", "Pleth"):
        assert not is_ecg_name(name), name
    for name in ("RESP,", "Resp", "RESPIRATION", "THOR RES", "Thorax", "ABDO RES", "Airflow",
                 "Resp (nasal)"):
        assert is_resp_name(name), name
    assert ecg_channels(["RESP", "II", "PLETH", "V"]) == [1, 3]


@pytest.mark.parametrize("name", [
    "RSP", "rsp", "Resp", "IP", "RIP Thorax", "RIP Abdomen", "Thorax belt", "Abdomen", "ABD",
    "Chest belt", "Effort THO", "Effort ABD", "Flow", "Nasal pressure", "Oronasal", "CO2",
    "EtCO2", "Capnogram", "Pneumogram", "Belt", "PCO2", "PetCO2", "Capnography", "Therm",
    "Thermistor", "Airway pressure", "Paw", "Spirometer", "Respiratory effort",
])
def test_common_respiration_names_are_recognised(name):
    assert is_resp_name(name)
    assert choose_resp(["ECG", name], source="r") == 1


@pytest.mark.parametrize("name", ["RSPX", "IPX", "SpO2", "PLETH", "ABP", "HR", "EEG", "Temp",
                                  "PPG", "Pulse", "PAP", "Thermometer", "Pawn", "CVP",
                                  "Breath"])
def test_other_names_are_no_respiration(name):
    assert not is_resp_name(name)


def test_default_resp_choice_prefers_impedance_and_effort_to_flow_and_co2():
    assert choose_resp(["CO2", "Flow", "ECG", "RSP"], source="r") == 3
    assert choose_resp(["CO2", "Abdomen", "Flow", "Thorax"], source="r") == 3
    assert choose_resp(["CO2", "Airflow"], source="r") == 1


def test_default_resp_choice():
    assert choose_resp(["Resp N", "Resp A", "Resp C", "ECG"], source="r") == 2  # chest effort first
    assert choose_resp(["II", "PLETH"], source="r") is None
    assert choose_resp(["ABDO RES", "THOR RES"], source="r") == 1
    assert choose_resp(["Resp (sum)", "x"], "resp (SUM)", source="r") == 0


def test_errors_name_the_file_and_the_channels():
    with pytest.raises(ChannelError,
                       match=r"no ECG channel in f\.hea; channels found: PLETH, ABP; "
                             r"pass channel="):
        choose_ecg(["PLETH,", "ABP,"], source="f.hea")
    with pytest.raises(ChannelError,
                       match=r"channel 'V9' not found in f\.hea; valid channels: II, RESP"):
        choose_ecg(["II,", "RESP,"], "V9", source="f.hea")
    with pytest.raises(ChannelError,
                       match=r"channel 'Flow' not found in f\.hea; valid channels: II"):
        choose_resp(["II"], "Flow", source="f.hea")
