# script-version: 2
# Catalyst script: parallel VTK PolyData extracts of the agents (.pvtp, one
# piece per rank) and, once, of the geometry, under OUT/catalyst/.
# Run: throng run SCENARIO --catalyst configs/catalyst/extracts.py
# Open OUT/catalyst/agents_*.pvtp in ParaView (docs/insitu.md).
from paraview.simple import *
from paraview import catalyst

# the channels throng hands over (names must match)
agents = TrivialProducer(registrationName='agents')
geometry = TrivialProducer(registrationName='geometry')

agents_vtp = CreateExtractor('VTP', agents, registrationName='agents_vtp')
agents_vtp.Writer.FileName = 'agents_{timestep:06d}.pvtp'

options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'
