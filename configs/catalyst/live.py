# script-version: 2
# Catalyst script: serves the agents and the geometry to a live ParaView
# (Catalyst > Connect in the ParaView GUI, port 22222 by default). Nothing
# is written. With no ParaView listening the run goes on; each call then
# costs a failed connection attempt (a few milliseconds).
# Run:  throng run SCENARIO --catalyst configs/catalyst/live.py
#       THRONG_CATALYST_LIVE=host:port to connect elsewhere (e.g. through
#       an ssh tunnel from a cluster's compute node; docs/insitu.md).
import os

from paraview.simple import *
from paraview import catalyst

agents = TrivialProducer(registrationName='agents')
geometry = TrivialProducer(registrationName='geometry')

options = catalyst.Options()
options.EnableCatalystLive = 1
options.CatalystLiveURL = os.environ.get('THRONG_CATALYST_LIVE', 'localhost:22222')
options.CatalystLiveTrigger = 'TimeStep'
options.GlobalTrigger = 'TimeStep'
